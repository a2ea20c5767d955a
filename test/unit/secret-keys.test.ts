import { ServiceUnavailable } from "../../src/common/errors";
import { PendingSecret } from "../../src/secrets/encryption-key-setting";
import { SecretBox } from "../../src/secrets/secret-box";
import {
  pendingSecretsReason,
  SECRETS_PENDING_RETRY_AFTER_SECONDS,
  secretKeys,
  secretSealer,
} from "../../src/secrets/secret-keys";
import { thrown } from "../support/thrown";

const KEY = Buffer.alloc(32, 7);
const OLD = Buffer.alloc(32, 3);
const pendingKey = new PendingSecret("SECRETS_ENCRYPTION_KEY");
const pendingPrevious = new PendingSecret("SECRETS_ENCRYPTION_PREVIOUS_KEYS");

describe("the keys, while a key setting may be pending", () => {
  it("are there when both settings are", () => {
    const config = { SECRETS_ENCRYPTION_KEY: KEY, SECRETS_ENCRYPTION_PREVIOUS_KEYS: [OLD] };
    expect(pendingSecretsReason(config)).toBeUndefined();
    expect(secretKeys(config)).toEqual({ current: KEY, previous: [OLD] });
    expect(secretKeys({ SECRETS_ENCRYPTION_KEY: KEY })).toEqual({ current: KEY, previous: [] });
  });

  it.each([
    ["the key", { SECRETS_ENCRYPTION_KEY: pendingKey }, "SECRETS_ENCRYPTION_KEY"],
    [
      "the previous keys",
      { SECRETS_ENCRYPTION_KEY: KEY, SECRETS_ENCRYPTION_PREVIOUS_KEYS: pendingPrevious },
      "PREVIOUS",
    ],
  ])("are a 503 naming the setting while %s is pending", (_label, config, named) => {
    const error = thrown(() => secretKeys(config));
    expect(error).toBeInstanceOf(ServiceUnavailable);
    expect((error as ServiceUnavailable).message).toContain(named);
    expect((error as ServiceUnavailable).message).toContain("is an unresolved Key Vault reference");
    expect((error as ServiceUnavailable).retryAfterSeconds).toBe(SECRETS_PENDING_RETRY_AFTER_SECONDS);
  });
});

describe("secretSealer", () => {
  it("is a SecretBox of the keys when they are there", () => {
    const sealer = secretSealer({ SECRETS_ENCRYPTION_KEY: KEY, SECRETS_ENCRYPTION_PREVIOUS_KEYS: [OLD] });
    expect(sealer).toBeInstanceOf(SecretBox);
    const oldBox = new SecretBox(OLD).seal("sealed before the rotation", "doc");
    expect(sealer.open(oldBox, "doc")).toBe("sealed before the rotation");
  });

  it("refuses both sealing and opening with the 503 while the key is pending, and never with what it was given", () => {
    const sealer = secretSealer({
      SECRETS_ENCRYPTION_KEY: pendingKey,
      SECRETS_ENCRYPTION_PREVIOUS_KEYS: [OLD],
    });
    const box = new SecretBox(OLD).seal("would open with the previous key", "doc");
    for (const attempt of [() => sealer.seal("secret", "doc"), () => sealer.open(box, "doc")]) {
      const error = thrown(attempt);
      expect(error).toBeInstanceOf(ServiceUnavailable);
      expect((error as Error).message).toMatch(
        /^SECRETS_ENCRYPTION_KEY is an unresolved Key Vault reference: /,
      );
    }
  });
});
