/**
 * Service Bus connection strings (`Endpoint=sb://…;SharedAccessKeyName=…;SharedAccessKey=…;EntityPath=…`).
 * Problems name the part, never its value: the string holds a key.
 */
export interface ConnectionStringParts {
  endpoint: string;
  sharedAccessKeyName: string;
  sharedAccessKey: string;
  entityPath: string;
}

export type ParseResult = { ok: true; parts: ConnectionStringParts } | { ok: false; problems: string[] };

const MASKED = "***";
const REQUIRED = ["Endpoint", "SharedAccessKeyName", "SharedAccessKey", "EntityPath"] as const;

function splitPairs(text: string): {
  pairs: Map<string, { key: string; value: string }>;
  problems: string[];
} {
  const pairs = new Map<string, { key: string; value: string }>();
  const problems: string[] = [];
  for (const segment of text.split(";")) {
    if (segment.trim() === "") continue;
    const equals = segment.indexOf("=");
    if (equals <= 0) {
      problems.push("has a part that is not of the form key=value");
      continue;
    }
    const key = segment.slice(0, equals).trim();
    // Values may themselves contain '=' (base64 keys): only the first one separates.
    const value = segment.slice(equals + 1).trim();
    if (pairs.has(key.toLowerCase())) problems.push(`has ${key} more than once`);
    pairs.set(key.toLowerCase(), { key, value });
  }
  return { pairs, problems };
}

export function parseConnectionString(text: string): ParseResult {
  const { pairs, problems } = splitPairs(text);
  const value = (key: string) => pairs.get(key.toLowerCase())?.value ?? "";
  for (const key of REQUIRED) {
    if (value(key) === "") problems.push(`is missing ${key}`);
  }
  const endpoint = value("Endpoint");
  if (endpoint !== "" && !/^sb:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?\/?$/.test(endpoint)) {
    problems.push("has an Endpoint that is not of the form sb://<namespace host>/");
  }
  if (value("SharedAccessKey") === MASKED) {
    problems.push("has a masked SharedAccessKey (***): send the real key, responses never carry it");
  }
  const entityPath = value("EntityPath");
  if (entityPath !== "" && !/^[A-Za-z0-9][A-Za-z0-9._\-/]{0,259}$/.test(entityPath)) {
    problems.push(
      "has an EntityPath that is not a topic name (letters, digits, '.', '-', '_', '/'; at most 260)",
    );
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    parts: {
      endpoint,
      sharedAccessKeyName: value("SharedAccessKeyName"),
      sharedAccessKey: value("SharedAccessKey"),
      entityPath,
    },
  };
}

/** The connection string as sent, with the key's value replaced by ***. */
export function maskConnectionString(text: string): string {
  return text.replace(/(^|;)(\s*SharedAccessKey\s*=)[^;]*/gi, `$1$2${MASKED}`);
}
