import { isIP, isIPv4 } from "node:net";
import { parseServiceBusConnectionString } from "@azure/service-bus";
import fc from "fast-check";
import { maskConnectionString, parseConnectionString } from "../../src/endpoints/connection-string";
import {
  connectionStringProblems,
  DEFAULT_SERVICEBUS_HOST_SUFFIXES,
  DEFAULT_STORAGE_HOST_SUFFIXES,
  deadLetterSecretProblems,
  type EndpointAllowList,
} from "../../src/endpoints/endpoint-allow-list";

/**
 * Hostile spellings of hosts and of connection-string keys, checked against an oracle that does
 * not share the service's code: the host the SDKs would connect to (read the way they read it,
 * then normalised by WHATWG URL parsing) must be a label-boundary suffix match of an allowed
 * suffix, or loopback when that is allowed; and whatever is accepted, the masked form holds no
 * secret value.
 */
const RUNS = 3000;

// ---- the oracle -----------------------------------------------------------------------------

function normalisedHostname(host: string): string | undefined {
  try {
    return new URL(`https://${host}/`).hostname;
  } catch {
    return undefined;
  }
}

function isLoopback(hostname: string): boolean {
  return (
    hostname === "localhost" || hostname === "[::1]" || (isIPv4(hostname) && hostname.startsWith("127."))
  );
}

function oracleAdmits(hostname: string | undefined, suffixes: readonly string[], loopback: boolean): boolean {
  if (hostname === undefined) return false;
  if (loopback && isLoopback(hostname)) return true;
  if (isIP(hostname.replace(/^\[|\]$/g, "")) !== 0) return false;
  return suffixes.some((suffix) => hostname.length > suffix.length && hostname.endsWith(suffix));
}

// ---- hostile hosts ----------------------------------------------------------------------------

const randomCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((char, index) => (upper[index] ? char.toUpperCase() : char)).join(""));

const label = fc.oneof(
  fc.constantFrom("ns", "a", "x-1", "xn--bcher-kva", "evil", "localhost", "127", "0x7f", "-x", ""),
  fc.stringMatching(/^[a-z0-9-]{1,12}$/),
);

const octet = fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(127, 169, 10, 0, 255));

/** IPv4 addresses in the spellings WHATWG and inet_aton accept. */
const ipv4 = fc.oneof(
  fc.tuple(octet, octet, octet, octet).map((parts) => parts.join(".")),
  fc
    .tuple(octet, octet, octet, octet)
    .map((parts) => String(parts.reduce((sum, part) => sum * 256 + part, 0))),
  fc.tuple(octet, octet).map(([first, last]) => `${first}.${last}`),
  fc.tuple(octet, octet, octet).map(([a, b, c]) => `${a}.${b}.${c}`),
  fc
    .tuple(octet, octet, octet, octet)
    .map((parts) => parts.map((part) => `0x${part.toString(16)}`).join(".")),
  fc.tuple(octet, octet, octet, octet).map((parts) => parts.map((part) => `0${part.toString(8)}`).join(".")),
  fc.constantFrom("127.0.0.1", "127.1", "0x7f.1", "2130706433", "0177.0.0.1", "169.254.169.254", "0"),
);

const ipv6 = fc.oneof(
  fc.constantFrom("::1", "0:0:0:0:0:0:0:1", "::", "fd00::1", "fe80::1", "::ffff:127.0.0.1", "::ffff:7f00:1"),
  ipv4.map((address) => `::ffff:${address}`),
  fc
    .array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 })
    .map((groups) => groups.map((group) => group.toString(16)).join(":")),
);

const suffixLike = fc.constantFrom(
  ...DEFAULT_SERVICEBUS_HOST_SUFFIXES,
  ...DEFAULT_STORAGE_HOST_SUFFIXES,
  ".servicebus.windows.net.",
  ".servicebus.windows.net.evil.example",
  "-servicebus.windows.net",
  "servicebus.windows.net",
  ".blob.core.windows.net.evil.example",
  ".queue.core.windows.net",
  ".windows.net",
  "",
);

const nameHost = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), suffixLike)
  .map(([labels, suffix]) => `${labels.join(".")}${suffix}`)
  .chain((host) => fc.oneof(fc.constant(host), randomCase(host)));

const plainHost = fc.oneof(
  nameHost,
  ipv4,
  ipv6.map((address) => `[${address}]`),
  fc.constant("localhost"),
);

/** One hostile change to a host: encoded, look-alike characters, user information, blanks, ports. */
const hostile = fc.oneof(
  { weight: 4, arbitrary: plainHost },
  {
    weight: 1,
    arbitrary: fc.tuple(plainHost, fc.nat()).map(([host, at]) => {
      const index = at % Math.max(host.length, 1);
      return `${host.slice(0, index)}%${(host.charCodeAt(index) || 46).toString(16)}${host.slice(index + 1)}`;
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(plainHost, fc.nat(), fc.constantFrom("．", "。", "ⓧ", "ａ", "\u00ad", "\t", " ", "\\", "İ", "ß"))
      .map(([host, at, char]) => {
        const index = at % Math.max(host.length, 1);
        return `${host.slice(0, index)}${char}${host.slice(index)}`;
      }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(plainHost, plainHost, fc.constantFrom("@", ":x@", "#@", "\\", "/", "?@", "%40"))
      .map(([first, second, joint]) => `${first}${joint}${second}`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        plainHost,
        fc.oneof(fc.integer({ min: 0, max: 70000 }), fc.constantFrom("", "05672", "443", "x")),
      )
      .map(([host, port]) => `${host}:${port}`),
  },
);

const allowList = fc.record({
  serviceBusSuffixes: fc.constant(DEFAULT_SERVICEBUS_HOST_SUFFIXES),
  storageSuffixes: fc.constant(DEFAULT_STORAGE_HOST_SUFFIXES),
  allowLoopback: fc.boolean(),
}) as fc.Arbitrary<EndpointAllowList>;

describe("the allow-list, against hostile host spellings", () => {
  it("admits a Service Bus Endpoint only when the host the SDK connects to is allowed", () => {
    const seen = { admitted: 0, refused: 0 };
    fc.assert(
      fc.property(
        hostile,
        fc.constantFrom("/", ""),
        allowList,
        fc.boolean(),
        (host, slash, list, emulator) => {
          const text = `Endpoint=sb://${host}${slash};SharedAccessKeyName=send;SharedAccessKey=a2V5;EntityPath=t${
            emulator ? ";UseDevelopmentEmulator=true" : ""
          }`;
          if (connectionStringProblems(text, list).length > 0) {
            seen.refused++;
            return;
          }
          seen.admitted++;
          // The SDK takes the namespace as everything between "://" and the next "/".
          const sdkNamespace = parseServiceBusConnectionString(text).fullyQualifiedNamespace;
          const hostname = normalisedHostname(sdkNamespace);
          expect(oracleAdmits(hostname, list.serviceBusSuffixes, list.allowLoopback)).toBe(true);
          // Plain AMQP (no TLS) only ever to loopback.
          if (emulator) expect(list.allowLoopback && isLoopback(hostname as string)).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
    expect(seen.admitted).toBeGreaterThan(RUNS / 50);
    expect(seen.refused).toBeGreaterThan(RUNS / 2);
  });

  it("admits a dead-letter URL only when the host the blob client connects to is allowed, over https", () => {
    const seen = { admitted: 0, refused: 0 };
    fc.assert(
      fc.property(hostile, fc.constantFrom("https", "http"), allowList, (host, scheme, list) => {
        const path =
          isIP(host.replace(/^\[|\]$/g, "")) !== 0 || host === "localhost" ? "/acct/dead" : "/dead";
        const text = `${scheme}://${host}${path}?sv=2022-11-02&sig=c2ln`;
        if (deadLetterSecretProblems(text, list).length > 0) {
          seen.refused++;
          return;
        }
        seen.admitted++;
        // The storage SDK parses the URL with WHATWG URL.
        const url = new URL(text);
        expect(oracleAdmits(url.hostname, list.storageSuffixes, list.allowLoopback)).toBe(true);
        if (url.protocol === "http:") expect(list.allowLoopback && isLoopback(url.hostname)).toBe(true);
        expect(url.username + url.password).toBe("");
      }),
      { numRuns: RUNS },
    );
    expect(seen.admitted).toBeGreaterThan(RUNS / 50);
    expect(seen.refused).toBeGreaterThan(RUNS / 2);
  });
});

// ---- hostile spellings of secrets ---------------------------------------------------------------

const MARKER = "Qz9SECRET";
const secretValue = fc
  .string({ unit: fc.constantFrom(..."ABCDEFabcdef0123456789+/="), minLength: 0, maxLength: 12 })
  .map((random) => `${MARKER}${random}`);

/** Mostly nothing, so that a fair share of strings is accepted and the masks of those are checked. */
const rarely = (spellings: string[]) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant("") },
    { weight: 1, arbitrary: fc.constantFrom(...spellings) },
  );
const blank = rarely([" ", "\t", "\n"]);

/** `key=value`, the key in any case, blanks anywhere around, the value sometimes quoted. */
const segment = (key: string, value: fc.Arbitrary<string>) =>
  fc
    .tuple(
      fc.oneof({ weight: 6, arbitrary: fc.constant(key) }, { weight: 1, arbitrary: randomCase(key) }),
      value,
    )
    .chain(([spelledKey, spelledValue]) =>
      fc
        .tuple(blank, blank, blank, blank, rarely(['"', "'"]))
        .map(
          ([beforeKey, afterKey, beforeValue, afterValue, quote]) =>
            `${beforeKey}${spelledKey}${afterKey}=${beforeValue}${quote}${spelledValue}${quote}${afterValue}`,
        ),
    );

const secretSegments = fc.oneof(
  { weight: 6, arbitrary: segment("SharedAccessKey", secretValue) },
  {
    weight: 2,
    arbitrary: segment(
      "SharedAccessSignature",
      secretValue.chain((value) =>
        // The SDK's form has a blank; without it, only the key rule refuses it.
        fc.constantFrom(`SharedAccessSignature sr=ns&sig=${value}&se=1&skn=send`, `sr=ns&sig=${value}&se=1`),
      ),
    ),
  },
  { weight: 1, arbitrary: segment("Password", secretValue) },
  { weight: 1, arbitrary: segment("AccountKey", secretValue) },
  { weight: 1, arbitrary: secretValue },
);

const otherSegments = fc.oneof(
  segment("Endpoint", fc.constantFrom("sb://ns.servicebus.windows.net/", "sb://127.0.0.1:5672/")),
  segment("SharedAccessKeyName", fc.constantFrom("send", "RootManageSharedAccessKey")),
  segment("EntityPath", fc.constantFrom("twin-events", "t")),
  segment("UseDevelopmentEmulator", fc.constantFrom("true", "false", "yes")),
  fc.constant(""),
);

const hostileConnectionString = fc
  .tuple(
    fc.array(secretSegments, { minLength: 1, maxLength: 3 }),
    fc.array(otherSegments, { minLength: 0, maxLength: 6 }),
    fc.array(fc.nat(), { minLength: 9, maxLength: 9 }),
    fc.constantFrom("", ";", ";;"),
  )
  .map(([secrets, others, order, trailing]) => {
    const all = [...secrets, ...others];
    // A stable shuffle driven by the generated order.
    const shuffled = all
      .map((part, index) => ({ part, rank: order[index % order.length] ?? 0 }))
      .sort((a, b) => a.rank - b.rank)
      .map(({ part }) => part);
    return `${shuffled.join(";")}${trailing}`;
  });

/** The well-formed base and at most one more part, so that hostile strings differ from an accepted one by little. */
const nearlyValid = fc
  .tuple(
    segment("SharedAccessKey", secretValue),
    fc.array(fc.oneof(otherSegments, secretSegments), { maxLength: 1 }),
  )
  .map(([key, extra]) =>
    [
      "Endpoint=sb://ns.servicebus.windows.net/",
      "SharedAccessKeyName=send",
      key,
      "EntityPath=t",
      ...extra,
    ].join(";"),
  );

describe("connection strings, against hostile spellings of secret keys", () => {
  it("never shows a secret value: masked when accepted (or stored before), unquoted when refused", () => {
    const list: EndpointAllowList = {
      serviceBusSuffixes: DEFAULT_SERVICEBUS_HOST_SUFFIXES,
      storageSuffixes: DEFAULT_STORAGE_HOST_SUFFIXES,
      allowLoopback: true,
    };
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(hostileConnectionString, nearlyValid), (text) => {
        // Documents stored before the stricter rules are masked too: the mask is total.
        expect(maskConnectionString(text)).not.toContain(MARKER);
        const problems = connectionStringProblems(text, list);
        expect(JSON.stringify(problems)).not.toContain(MARKER);
        if (problems.length > 0) return;
        accepted++;
        // Accepted: the SDK reads exactly the key this service read, and no other credential.
        const parsed = parseConnectionString(text);
        const sdk = parseServiceBusConnectionString(text);
        expect(parsed.ok && sdk.sharedAccessKey === parsed.value.parts.sharedAccessKey).toBe(true);
        // The mask read from the parsed value is the total mask, and hides the key.
        expect(parsed.ok && parsed.value.masked).toBe(maskConnectionString(text));
        expect(sdk.sharedAccessSignature).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
    expect(accepted).toBeGreaterThan(RUNS / 50);
  });
});
