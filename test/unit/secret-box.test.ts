import { randomBytes } from "node:crypto";
import { keyFingerprint, SecretBox, SecretsUnreadable } from "../../src/secrets/secret-box";
import { thrown } from "../support/thrown";

describe("SecretBox", () => {
  const key = randomBytes(32);

  it("opens what it sealed, and the box holds no plaintext", () => {
    const box = new SecretBox(key);
    const sealed = box.seal("SharedAccessKey=top-secret", "doc-1");
    expect(JSON.stringify(sealed)).not.toContain("top-secret");
    expect(sealed.keyId).toBe(keyFingerprint(key));
    expect(box.open(sealed, "doc-1")).toBe("SharedAccessKey=top-secret");
  });

  it("seals the same text differently each time", () => {
    const box = new SecretBox(key);
    expect(box.seal("x", "d").ciphertext).not.toBe(box.seal("x", "d").iv && box.seal("x", "d").ciphertext);
    expect(box.seal("x", "d").iv).not.toBe(box.seal("x", "d").iv);
  });

  it("does not open a box moved into another document", () => {
    const box = new SecretBox(key);
    const error = thrown(() => box.open(box.seal("secret", "doc-1"), "doc-2"));
    expect(error).toBeInstanceOf(SecretsUnreadable);
    expect((error as SecretsUnreadable).message).toMatch(/altered or moved/);
  });

  it("names the missing key when a box was sealed under a key it does not have", () => {
    const sealed = new SecretBox(randomBytes(32)).seal("secret", "doc");
    const error = thrown(() => new SecretBox(key).open(sealed, "doc")) as SecretsUnreadable;
    expect(error).toBeInstanceOf(SecretsUnreadable);
    expect(error.status).toBe(500);
    expect(error.message).toContain(sealed.keyId);
    expect(error.message).toContain("SECRETS_ENCRYPTION_PREVIOUS_KEYS");
  });

  it("opens boxes sealed before a rotation with the previous key, and seals with the new one", () => {
    const oldKey = randomBytes(32);
    const sealedBefore = new SecretBox(oldKey).seal("secret", "doc");
    const rotated = new SecretBox(key, [oldKey]);
    expect(rotated.open(sealedBefore, "doc")).toBe("secret");
    expect(rotated.seal("secret", "doc").keyId).toBe(keyFingerprint(key));
  });
});
