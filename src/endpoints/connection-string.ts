import { type Authority, parseAuthority } from "./host-names";

/**
 * Service Bus connection strings (`Endpoint=sb://…;SharedAccessKeyName=…;SharedAccessKey=…;EntityPath=…`).
 *
 * The Service Bus SDK reads keys case-sensitively, trims blanks, lets the last of a repeated key
 * win, and also authenticates with `SharedAccessSignature`. Any spelling it could read otherwise
 * than this parser does is refused: exactly these keys, as written here, once each, without
 * blanks. So what is accepted holds one credential, the SharedAccessKey, and the mask hides it.
 * Problems name keys, never values: the string holds a key.
 */
export interface ConnectionStringParts {
  endpoint: string;
  /** The Endpoint's host and port, in the only spelling accepted. */
  authority: Authority;
  sharedAccessKeyName: string;
  sharedAccessKey: string;
  entityPath: string;
  /** Present when the string has UseDevelopmentEmulator; `true` makes the SDK speak plain AMQP, without TLS. */
  useDevelopmentEmulator?: boolean;
}

/**
 * A connection string that parsed: what the service checks, stores and shows is read from here,
 * never from the text again.
 */
export interface ConnectionString {
  /** As sent: what is sealed, and what the Service Bus SDK reads. */
  text: string;
  parts: ConnectionStringParts;
  /** The text with the SharedAccessKey's value replaced by ***: what responses show. */
  masked: string;
}

export type ParseResult = { ok: true; value: ConnectionString } | { ok: false; problems: string[] };

const MASKED = "***";
const REQUIRED = ["Endpoint", "SharedAccessKeyName", "SharedAccessKey", "EntityPath"] as const;
const KEYS = [...REQUIRED, "UseDevelopmentEmulator"] as const;
type Key = (typeof KEYS)[number];

/** A topic's name, as an EntityPath or an identity-based endpoint's entityPath gives it. */
export const ENTITY_PATH = /^[A-Za-z0-9][A-Za-z0-9._\-/]{0,259}$/;

/** What each value may hold; none may hold blanks, quotes or ';', which parsers read differently. */
const VALUE_RULES: Record<Exclude<Key, "Endpoint">, { pattern: RegExp; problem: string }> = {
  SharedAccessKeyName: {
    pattern: /^[A-Za-z0-9._-]{1,256}$/,
    problem: "has a SharedAccessKeyName that is not a rule name (letters, digits, '.', '-', '_')",
  },
  SharedAccessKey: {
    pattern: /^[A-Za-z0-9+/=_-]{1,256}$/,
    problem: "has a SharedAccessKey that is not a key (base64: letters, digits, '+', '/', '=', '-', '_')",
  },
  EntityPath: {
    pattern: ENTITY_PATH,
    problem: "has an EntityPath that is not a topic name (letters, digits, '.', '-', '_', '/'; at most 260)",
  },
  UseDevelopmentEmulator: {
    pattern: /^(?:true|false)$/,
    problem: "has a UseDevelopmentEmulator that is neither true nor false",
  },
};

/**
 * Non-secret keys, shown in responses when their value keeps to its rule. An array, not a Set:
 * the Pulumi package serializes the mask with its captured values, and a Set does not survive that.
 */
const SHOWN_KEYS: readonly string[] = [
  "Endpoint",
  "SharedAccessKeyName",
  "EntityPath",
  "UseDevelopmentEmulator",
];

const ENDPOINT_FORM = /^sb:\/\/([^/?#]*)\/?$/;

/**
 * Keys other Service Bus clients read, which this service refuses: named in a problem, since a
 * caller who wrote one needs to know which.
 */
const FOREIGN_KEYS = [
  "SharedAccessSignature",
  "TransportType",
  "OperationTimeout",
  "Authentication",
  "StsEndpoint",
  "RuntimePort",
  "ManagementPort",
];

/**
 * A part's key is quoted in a problem only when it is a key some client knows (in any letter case):
 * anything else may be a piece of a secret (a value with a ';' in it, a key pasted in the wrong
 * place), so the problem names its position instead.
 */
function quotableKey(key: string): string | undefined {
  const lower = key.toLowerCase();
  return [...KEYS, ...FOREIGN_KEYS].some((name) => name.toLowerCase() === lower) ? key : undefined;
}

/** How a problem names a part's key: the key when quotable, else the part's position (1 = first). */
function keyNamed(key: string, position: number): string {
  return quotableKey(key) === undefined ? `the key of part ${position} (not shown)` : `the key ${key}`;
}

function isKey(key: string): key is Key {
  return (KEYS as readonly string[]).includes(key);
}

export type EndpointReading = { ok: true; authority: Authority } | { ok: false; problem: string };

/** The host of an `sb://host[:port]/` Endpoint, or why there is none. */
export function readEndpoint(endpoint: string): EndpointReading {
  const form = ENDPOINT_FORM.exec(endpoint);
  if (form?.[1] === undefined) {
    return { ok: false, problem: "has an Endpoint that is not of the form sb://<namespace host>/" };
  }
  if (form[1].includes("@")) {
    return {
      ok: false,
      problem: "has an Endpoint with user information (user:password@), which is not accepted",
    };
  }
  const authority = parseAuthority(form[1]);
  if (!authority) {
    return {
      ok: false,
      problem:
        "has an Endpoint whose host is not written plainly (DNS labels of letters, digits and '-', or a port): percent-encoding, non-ASCII characters, trailing dots and numeric forms of IP addresses are refused",
    };
  }
  return { ok: true, authority };
}

/** What is wrong with one `key=value` part: an unknown key first, as the most telling. */
function partProblem(segment: string, position: number): string | undefined {
  const equals = segment.indexOf("=");
  if (equals <= 0) return `has a part (part ${position}) that is not of the form key=value`;
  const key = segment.slice(0, equals);
  const canonical = KEYS.find((name) => name.toLowerCase() === key.trim().toLowerCase());
  if (canonical === undefined) {
    return `has ${keyNamed(key.trim(), position)}, which is not accepted: the keys are ${KEYS.join(", ")} (UseDevelopmentEmulator for a local emulator only)`;
  }
  if (/\s/.test(segment)) return `has white space in its ${canonical} part: write key=value without blanks`;
  if (key !== canonical) return `has the key ${key}: keys are case-sensitive, write ${canonical}`;
  return undefined;
}

function splitParts(text: string): { values: Map<Key, string>; masked: string; problems: string[] } {
  const values = new Map<Key, string>();
  const masked: string[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  // Empty parts carry nothing (a trailing ';' is common): the SDK skips them too.
  for (const [index, segment] of text.split(";").entries()) {
    if (segment === "") {
      masked.push(segment);
      continue;
    }
    const problem = partProblem(segment, index + 1);
    if (problem !== undefined) problems.push(problem);
    const equals = segment.indexOf("=");
    const key = segment.slice(0, Math.max(equals, 0)).trim();
    // Repeats are refused whatever their case: parsers disagree on which copy wins.
    if (key !== "" && seen.has(key.toLowerCase()))
      problems.push(`has ${keyNamed(key, index + 1)} more than once`);
    seen.add(key.toLowerCase());
    if (problem === undefined && isKey(key)) values.set(key, segment.slice(equals + 1));
    masked.push(key === "SharedAccessKey" ? `${key}=${MASKED}` : segment);
  }
  // Kept only when nothing is wrong: then every part is a known key, once, and only the key is secret.
  return { values, masked: masked.join(";"), problems };
}

export function parseConnectionString(text: string): ParseResult {
  const { values, masked, problems } = splitParts(text);
  const value = (key: Key) => values.get(key) ?? "";
  for (const key of REQUIRED) {
    if (value(key) === "") problems.push(`is missing ${key}`);
  }
  let authority: Authority | undefined;
  if (value("Endpoint") !== "") {
    const reading = readEndpoint(value("Endpoint"));
    if (reading.ok) authority = reading.authority;
    else problems.push(reading.problem);
  }
  if (value("SharedAccessKey") === MASKED) {
    problems.push("has a masked SharedAccessKey (***): send the real key, responses never carry it");
  }
  for (const key of Object.keys(VALUE_RULES) as (keyof typeof VALUE_RULES)[]) {
    const rule = VALUE_RULES[key];
    const given = values.get(key);
    if (given !== undefined && given !== "" && given !== MASKED && !rule.pattern.test(given))
      problems.push(rule.problem);
  }
  if (problems.length > 0 || authority === undefined) return { ok: false, problems };
  const parts: ConnectionStringParts = {
    endpoint: value("Endpoint"),
    authority,
    sharedAccessKeyName: value("SharedAccessKeyName"),
    sharedAccessKey: value("SharedAccessKey"),
    entityPath: value("EntityPath"),
    ...(values.has("UseDevelopmentEmulator") && {
      useDevelopmentEmulator: value("UseDevelopmentEmulator") === "true",
    }),
  };
  return { ok: true, value: { text, parts, masked } };
}

function showable(key: string, value: string): boolean {
  if (!SHOWN_KEYS.includes(key)) return false;
  if (key === "Endpoint") return readEndpoint(value).ok;
  return VALUE_RULES[key as keyof typeof VALUE_RULES].pattern.test(value);
}

/**
 * The connection string as sent, with every value but the non-secret ones replaced by ***. Total:
 * documents stored before the stricter rules may hold any spelling, and none may show a secret.
 * For a string that parses it equals the parsed value's `masked`.
 */
export function maskConnectionString(text: string): string {
  const seen = new Set<string>();
  return text
    .split(";")
    .map((segment) => {
      if (segment === "") return segment;
      const equals = segment.indexOf("=");
      if (equals <= 0) return MASKED;
      const key = segment.slice(0, equals);
      const first = !seen.has(key.toLowerCase());
      seen.add(key.toLowerCase());
      if (first && showable(key, segment.slice(equals + 1))) return segment;
      return `${quotableKey(key) ?? MASKED}=${MASKED}`;
    })
    .join(";");
}
