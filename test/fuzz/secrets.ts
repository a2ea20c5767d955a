import fc from "fast-check";

/**
 * Endpoint secrets with a recognisable marker in the credential part only (the SharedAccessKey
 * value, the SAS `sig`): a marker anywhere in a response or a log line is a leaked secret.
 */
export const SECRET_MARKERS = ["FUZZSECRET", "FUZZSIG"] as const;

const token = fc.string({
  unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"),
  minLength: 8,
  maxLength: 32,
});

/** A shared access key: the marker, random base64-ish text, sometimes base64 padding. */
const sharedAccessKey = fc
  .tuple(token, fc.constantFrom("", "=", "=="))
  .map(([random, padding]) => `FUZZSECRET${random}${padding}`);

/** Topics from a small pool, so primary and secondary usually name the same one. */
export const topic = fc.oneof(
  { weight: 30, arbitrary: fc.constant("twin-events") },
  { weight: 1, arbitrary: fc.constantFrom("orders", "a/b.c_d-e") },
  { weight: 1, arbitrary: fc.string({ minLength: 0, maxLength: 12 }) },
);

const endpoint = fc.oneof(
  { weight: 40, arbitrary: fc.constantFrom("sb://127.0.0.1:5672/", "sb://fuzz.servicebus.windows.net/") },
  { weight: 1, arbitrary: fc.constantFrom("https://fuzz.servicebus.windows.net/", "sb://", "sb://a b/", "") },
);

/** How one `key=value` part is written: the key in its own casing, blanks around, or left out. */
const part = (key: string, value: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 80, arbitrary: value.map((text) => `${key}=${text}`) },
    { weight: 1, arbitrary: value.map((text) => ` ${key.toLowerCase()} = ${text} `) },
    { weight: 1, arbitrary: fc.constant("") },
  );

/**
 * A Service Bus connection string, well-formed most of the time; otherwise with a part missing,
 * repeated, re-ordered or masked (`***`), as a client might get it wrong.
 */
export function connectionString(topicName: fc.Arbitrary<string> = topic): fc.Arbitrary<string> {
  const key = fc.oneof(
    { weight: 50, arbitrary: sharedAccessKey },
    { weight: 1, arbitrary: fc.constant("***") },
  );
  return fc
    .tuple(
      part("Endpoint", endpoint),
      part("SharedAccessKeyName", fc.constantFrom("RootManageSharedAccessKey", "send")),
      part("SharedAccessKey", key),
      part("EntityPath", topicName),
      fc.oneof(
        { weight: 30, arbitrary: fc.constantFrom("", "UseDevelopmentEmulator=true") },
        { weight: 1, arbitrary: fc.constant("SharedAccessKey=***") },
      ),
      fc.boolean(),
      fc.constantFrom("", ";"),
    )
    .map(([endpointPart, name, keyPart, entity, extra, reversed, trailing]) => {
      const parts = [endpointPart, name, keyPart, entity, extra].filter((text) => text !== "");
      return (reversed ? parts.reverse() : parts).join(";") + trailing;
    });
}

/** A dead-letter container URL with a SAS whose `sig` carries the marker; now and then malformed. */
export const deadLetterSecret: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(
      { weight: 20, arbitrary: fc.constant("http://127.0.0.1:10000/devstoreaccount1/dead-letters") },
      { weight: 20, arbitrary: fc.constant("https://fuzzaccount.blob.core.windows.net/dead-letters") },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          "https://fuzzaccount.blob.core.windows.net/a/b",
          "https://fuzzaccount.blob.core.windows.net/UPPER",
          "ftp://fuzzaccount.blob.core.windows.net/dead-letters",
          "http://localhost/devstoreaccount1",
          "not a url",
        ),
      },
    ),
    token,
    fc.constantFrom("sv=2022-11-02&sp=cw&", "", "se=2099-01-01T00%3A00%3A00Z&"),
    fc.constantFrom("", "&spr=https", "#fragment"),
  )
  .map(([base, signature, before, after]) => `${base}?${before}sig=FUZZSIG${signature}${after}`);
