import { redactSecrets } from "../../src/common/redact";

describe("redactSecrets", () => {
  it("masks shared access keys and account keys in connection strings", () => {
    const text =
      "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=abc123+/=;EntityPath=t";
    const redacted = redactSecrets(text);
    expect(redacted).not.toContain("abc123");
    expect(redacted).toContain("SharedAccessKey=***");
    expect(redacted).toContain("SharedAccessKeyName=send");
    expect(redactSecrets("AccountKey=Zm9v;BlobEndpoint=x")).toBe("AccountKey=***;BlobEndpoint=x");
  });

  it("masks SAS signatures and function keys in query strings", () => {
    const redacted = redactSecrets(
      "https://a.blob.core.windows.net/c?sv=2022&sig=s3cr3t%3D&se=2030 and /x?code=k3y",
    );
    expect(redacted).not.toContain("s3cr3t");
    expect(redacted).not.toContain("k3y");
  });
});
