/**
 * What the service can tell of a dead-letter SAS token without asking the store: its permissions
 * (`sp`), its expiry (`se`) and that it is signed once. Problems name the parameter, never a value.
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

/** What is wrong with a dead-letter URL's SAS token, checked when the endpoint is written. */
export function sasTokenProblems(query: URLSearchParams, now: Date): string[] {
  const problems: string[] = [];
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
