import { X509Certificate } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import * as tls from "node:tls";
import { generateLocalCertificate, isUsable, loadOrCreateLocalTls, writeCaBundle } from "../../dev/local-tls";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// The local TLS certificate: the loopback names, its own trust anchor, made once and reused.

afterAll(removeTempDirs);

describe("the local TLS certificate", () => {
  it("names localhost, 127.0.0.1 and ::1 and may anchor its own trust", async () => {
    const { cert } = await generateLocalCertificate();
    const x509 = new X509Certificate(cert);
    expect(x509.subjectAltName).toContain("DNS:localhost");
    expect(x509.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(x509.checkIP("::1")).toBe("::1");
    expect(x509.ca).toBe(true);
    expect(x509.checkIssued(x509)).toBe(true);
    expect(isUsable(cert)).toBe(true);
  });

  it("is trusted from a bundle that holds another clone's certificate before it", async () => {
    // OpenSSL takes the first trust anchor of the issuer's name: certificates named alike (as they
    // were) failed each other's checks with DEPTH_ZERO_SELF_SIGNED_CERT, seen when a test stack
    // ran beside another clone's. Each now has a subject of its own.
    const other = await generateLocalCertificate();
    const ours = await generateLocalCertificate();
    expect(new X509Certificate(ours.cert).subject).not.toBe(new X509Certificate(other.cert).subject);
    const server = tls.createServer({ key: ours.key, cert: ours.cert }, (socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const verified = await new Promise<boolean>((resolve) => {
        const socket = tls.connect({
          port,
          host: "127.0.0.1",
          servername: "localhost",
          ca: [other.cert, ours.cert],
        });
        socket.once("secureConnect", () => resolve(socket.authorized));
        socket.once("error", () => resolve(false));
      });
      expect(verified).toBe(true);
    } finally {
      server.close();
    }
  });

  it("is not usable near its end or before its start", async () => {
    const { cert } = await generateLocalCertificate();
    const validTo = Date.parse(new X509Certificate(cert).validTo);
    expect(isUsable(cert, validTo - 24 * 3600 * 1000)).toBe(false);
    expect(isUsable(cert, Date.now() - 3600 * 1000)).toBe(false);
    expect(isUsable("not a certificate")).toBe(false);
  });

  it("is made once into its folder and reused; a damaged one is replaced", async () => {
    const dir = tempDir("local-tls-");
    const first = await loadOrCreateLocalTls(dir);
    expect(readFileSync(first.certFile, "utf8")).toBe(first.cert);
    expect(readFileSync(first.keyPairFile, "utf8")).toContain(first.key);
    const again = await loadOrCreateLocalTls(dir);
    expect(again.cert).toBe(first.cert);
    writeFileSync(first.keyPairFile, "damaged");
    const replaced = await loadOrCreateLocalTls(dir);
    expect(replaced.cert).not.toBe(first.cert);
    expect(readFileSync(replaced.certFile, "utf8")).toBe(replaced.cert);
  });

  it("is the same for processes that make it at once", async () => {
    const dir = tempDir("local-tls-");
    const made = await Promise.all([
      loadOrCreateLocalTls(dir),
      loadOrCreateLocalTls(dir),
      loadOrCreateLocalTls(dir),
    ]);
    expect(new Set(made.map(({ cert }) => cert)).size).toBe(1);
  });

  it("bundles another CA file with it, for a NODE_EXTRA_CA_CERTS of the developer's", async () => {
    const dir = tempDir("local-tls-");
    const tls = await loadOrCreateLocalTls(dir);
    const other = await generateLocalCertificate();
    const otherFile = path.join(dir, "company-ca.pem");
    writeFileSync(otherFile, other.cert);
    const bundle = readFileSync(writeCaBundle(tls, otherFile, dir), "utf8");
    expect(bundle).toContain(other.cert.trim());
    expect(bundle).toContain(tls.cert.trim());
  });
});
