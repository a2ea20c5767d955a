import { X509Certificate } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import * as tls from "node:tls";
import { generateLocalCertificate, isUsable, loadOrCreateLocalTls, writeCaBundle } from "../../dev/local-tls";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// The local TLS certificate: the loopback names, its own trust anchor, made once and reused.

afterAll(removeTempDirs);

it("names localhost, 127.0.0.1 and ::1, anchors its own trust, and is not usable near its end", async () => {
  const { cert } = await generateLocalCertificate();
  const x509 = new X509Certificate(cert);
  expect(x509.subjectAltName).toContain("DNS:localhost");
  expect([x509.checkIP("127.0.0.1"), x509.checkIP("::1")]).toEqual(["127.0.0.1", "::1"]);
  expect(x509.ca && x509.checkIssued(x509)).toBe(true);
  expect(isUsable(cert)).toBe(true);
  expect(isUsable(cert, Date.parse(x509.validTo) - 24 * 3600 * 1000)).toBe(false);
  expect(isUsable(cert, Date.now() - 3600 * 1000)).toBe(false);
  expect(isUsable("not a certificate")).toBe(false);
});

it("is trusted from a bundle that holds another clone's certificate before it", async () => {
  // OpenSSL takes the first trust anchor of the issuer's name: certificates named alike failed
  // each other's checks (DEPTH_ZERO_SELF_SIGNED_CERT). Each has a subject of its own.
  const other = await generateLocalCertificate();
  const ours = await generateLocalCertificate();
  const server = tls.createServer({ key: ours.key, cert: ours.cert }, (socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const ca = [other.cert, ours.cert];
    const verified = await new Promise<boolean>((resolve) => {
      const socket = tls.connect({ port, host: "127.0.0.1", servername: "localhost", ca });
      socket.once("secureConnect", () => resolve(socket.authorized));
      socket.once("error", () => resolve(false));
    });
    expect(verified).toBe(true);
  } finally {
    server.close();
  }
});

it("is made once into its folder, also by processes at once, reused, and replaced when damaged", async () => {
  const dir = tempDir("local-tls-");
  const made = await Promise.all([
    loadOrCreateLocalTls(dir),
    loadOrCreateLocalTls(dir),
    loadOrCreateLocalTls(dir),
  ]);
  expect(new Set(made.map(({ cert }) => cert)).size).toBe(1);
  const first = made[0] as (typeof made)[number];
  expect(readFileSync(first.certFile, "utf8")).toBe(first.cert);
  expect(readFileSync(first.keyPairFile, "utf8")).toContain(first.key);
  expect((await loadOrCreateLocalTls(dir)).cert).toBe(first.cert);
  writeFileSync(first.keyPairFile, "damaged");
  const replaced = await loadOrCreateLocalTls(dir);
  expect(replaced.cert).not.toBe(first.cert);
  expect(readFileSync(replaced.certFile, "utf8")).toBe(replaced.cert);
});

it("bundles another CA file with it, for a NODE_EXTRA_CA_CERTS of the developer's", async () => {
  const dir = tempDir("local-tls-");
  const local = await loadOrCreateLocalTls(dir);
  const otherFile = path.join(dir, "company-ca.pem");
  writeFileSync(otherFile, (await generateLocalCertificate()).cert);
  const bundle = readFileSync(writeCaBundle(local, otherFile, dir), "utf8");
  expect(bundle).toBe(`${readFileSync(otherFile, "utf8").trimEnd()}\n${local.cert}`);
});
