import { X509Certificate } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import * as tls from "node:tls";
import {
  extraCaCertsFile,
  generateLocalCertificate,
  isUsable,
  loadOrCreateLocalTls,
} from "../../dev/local-tls";
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

it("is what NODE_EXTRA_CA_CERTS names, bundled after another CA file of the developer's, and trusted from there", async () => {
  const dir = tempDir("local-tls-");
  const local = await loadOrCreateLocalTls(dir);
  expect(extraCaCertsFile(local, undefined, dir)).toBe(local.certFile);
  expect(extraCaCertsFile(local, local.certFile, dir)).toBe(local.certFile);
  // Another clone's certificate first: OpenSSL takes the first trust anchor of the issuer's name,
  // so certificates named alike failed each other's checks (DEPTH_ZERO_SELF_SIGNED_CERT).
  const otherFile = path.join(dir, "other-clone.pem");
  writeFileSync(otherFile, (await generateLocalCertificate()).cert);
  const bundle = extraCaCertsFile(local, otherFile, dir);
  expect(extraCaCertsFile(local, bundle, dir)).toBe(local.certFile);
  const server = tls.createServer({ key: local.key, cert: local.cert }, (socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const ca = readFileSync(bundle, "utf8");
    expect(ca.startsWith(readFileSync(otherFile, "utf8").trimEnd())).toBe(true);
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
