/**
 * What the service can tell of a dead-letter SAS token without asking the store: its permissions
 * (`sp`), its start and expiry (`st`, `se`: ISO 8601 times), that it is signed once and repeats no
 * parameter. Problems name the parameter, never a value.
 *
 * Writing dead letters needs create and write (`c`, `w`). Redelivering them also needs read and
 * list (`r`, `l`): it lists the endpoint's folder, reads each blob, and marks it (write).
 */
export const DEAD_LETTER_PERMISSIONS = { c: "create", w: "write" } as const;
export const REDELIVERY_PERMISSIONS = { r: "read", w: "write", l: "list" } as const;

type Permissions = Readonly<Record<string, string>>;

/** The values of a query parameter, its name matched in any letter case (`SIG` is `sig` to some parsers). */
function valuesOf(query: URLSearchParams, name: string): string[] {
  return [...query].filter(([key]) => key.toLowerCase() === name).map(([, value]) => value);
}

/** `read (r)` for each permission of `needed` that `sp` lacks. */
function lacking(sp: string, needed: Permissions): string[] {
  return Object.entries(needed)
    .filter(([letter]) => !sp.includes(letter))
    .map(([letter, name]) => `${name} (${letter})`);
}

/** The permissions of `needed` a SAS URL's token lacks; none when its `sp` is absent or repeated (not known here). */
export function missingPermissions(sasUrl: string, needed: Permissions): string[] {
  let query: URLSearchParams;
  try {
    query = new URL(sasUrl).searchParams;
  } catch {
    return [];
  }
  const sp = valuesOf(query, "sp");
  return sp.length === 1 ? lacking(sp[0] as string, needed) : [];
}

/** Whether the token's expiry (`se`) has passed; false when it has none the service can read. */
export function sasExpired(query: URLSearchParams, now: Date): boolean {
  const se = valuesOf(query, "se");
  const at = se.length === 1 ? Date.parse(se[0] as string) : Number.NaN;
  return !Number.isNaN(at) && at <= now.getTime();
}

/**
 * A SAS time as Azure Storage takes it (ISO 8601): `YYYY-MM-DD`, or with `Thh:mm`, `Thh:mm:ss` or
 * `Thh:mm:ss.fffffff` and a zone (`Z`, `±hh:mm`). Anything else (`tomorrow`) the store refuses when
 * a dead letter is written, long after the endpoint was accepted.
 */
const SAS_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,7})?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d))?$/;

function isSasTime(text: string): boolean {
  const match = SAS_TIME.exec(text);
  if (match === null) return false;
  const [year, month, day] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  // A day the month has: Date.UTC rolls 2030-02-30 over into March.
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Parameters sig and sp have rules of their own that say "once". */
const COUNTED_ELSEWHERE = new Set(["sig", "sp"]);

/**
 * The token's parameters given more than once (any letter case, decoded): the store reads one
 * copy, this service another (two `se`: which expiry?). A name is shown only when it is short
 * letters, as every SAS parameter is: anything else may be a piece of the secret.
 */
function repeatedParameters(query: URLSearchParams): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const [name] of query) {
    const key = name.toLowerCase();
    if (seen.has(key) && !COUNTED_ELSEWHERE.has(key))
      repeated.add(/^[a-z]{1,6}$/.test(key) ? `${key}=` : "a parameter");
    seen.add(key);
  }
  return [...repeated];
}

/** What is wrong with a dead-letter URL's SAS token, checked when the endpoint is written. */
export function sasTokenProblems(query: URLSearchParams, now: Date): string[] {
  const problems: string[] = [];
  for (const name of repeatedParameters(query)) problems.push(`its SAS token gives ${name} more than once`);
  for (const [name, what] of [
    ["st", "start"],
    ["se", "expiry"],
  ] as const) {
    const values = valuesOf(query, name);
    if (values.length === 1 && !isSasTime(values[0] as string)) {
      problems.push(
        `its SAS token's ${what} (${name}=) must be an ISO 8601 time, such as 2030-01-01 or 2030-01-01T00:00:00Z`,
      );
    }
  }
  if (valuesOf(query, "sig").length !== 1)
    problems.push("must carry exactly one signature (sig=) in its SAS token");
  const sp = valuesOf(query, "sp");
  if (sp.length !== 1 || sp[0] === "") {
    problems.push(
      "must carry its permissions (sp=) once in its SAS token: dead letters need create and write (sp=cw), redelivering them also read and list (sp=rcwl)",
    );
  } else {
    const missing = lacking(sp[0] as string, DEAD_LETTER_PERMISSIONS);
    if (missing.length > 0) {
      problems.push(
        `its SAS token lacks ${missing.join(" and ")} permission: dead letters need create and write (sp=cw), redelivering them also read and list (sp=rcwl)`,
      );
    }
  }
  if (sasExpired(query, now)) problems.push("its SAS token has expired (se=)");
  return problems;
}
