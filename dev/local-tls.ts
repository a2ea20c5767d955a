import { randomUUID, X509Certificate } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { localTlsDir, writeWhole } from "./local-paths";

/**
 * The loopback TLS certificate the Service Bus stand-in's AMQPS listener and Azurite's HTTPS blob
 * service present; clients trust it through NODE_EXTRA_CA_CERTS = `certFile` (read at start only).
 * Self-signed and its own trust anchor (a CA), so Node accepts it without an intermediate.
 * `keyPairFile` holds key and certificate, for servers that read files (Azurite's --cert / --key).
 */
export interface LocalTls {
  certFile: string;
  keyPairFile: string;
  cert: string;
  key: string;
}

const LOOPBACK_NAMES = { dns: ["localhost"], ips: ["127.0.0.1", "::1"] } as const;
/** Each certificate's organization name: this, then a random id. */
const SUBJECT_PREFIX = "twin-resource-service local ";
/** Replaced at start this close to its end, so no run sees it expire. */
const RENEW_BEFORE_MS = 7 * 24 * 3600 * 1000;

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\s*/;
const KEY_BLOCK = /-----BEGIN (?:RSA |EC )?PRIVATE KEY-----[\s\S]+?-----END (?:RSA |EC )?PRIVATE KEY-----\s*/;

function split(pem: string): { cert: string; key: string } | undefined {
  const cert = CERT_BLOCK.exec(pem)?.[0];
  const key = KEY_BLOCK.exec(pem)?.[0];
  return cert && key ? { cert, key } : undefined;
}

/** Whether a certificate names every loopback name and is valid now and for a while longer. */
export function isUsable(certPem: string, now = Date.now()): boolean {
  try {
    const cert = new X509Certificate(certPem);
    const names = cert.subjectAltName ?? "";
    const named =
      LOOPBACK_NAMES.dns.every((dns) => names.includes(`DNS:${dns}`)) &&
      LOOPBACK_NAMES.ips.every((ip) => cert.checkIP(ip) !== undefined);
    // Without a subject of its own it fails beside another clone's (see generateLocalCertificate).
    const unique = cert.subject.includes(`O=${SUBJECT_PREFIX}`);
    return (
      named && unique && Date.parse(cert.validFrom) <= now && Date.parse(cert.validTo) - RENEW_BEFORE_MS > now
    );
  } catch {
    return false;
  }
}

/** A new self-signed certificate for the loopback names, and its key (PEM). */
export async function generateLocalCertificate(now = new Date()): Promise<{ cert: string; key: string }> {
  // selfsigned (pure JavaScript, so no openssl binary is needed), loaded only to make one: it is slow to load.
  const { generate } = require("selfsigned") as typeof import("selfsigned");
  // A subject of its own: OpenSSL finds a trust anchor by subject name and tries the first, so two
  // local certificates named alike in one bundle (two clones, a test stack beside `npm start`)
  // would fail each other's checks (DEPTH_ZERO_SELF_SIGNED_CERT). Clients check the names below.
  const subject = [
    { name: "commonName", value: "localhost" },
    { name: "organizationName", value: `${SUBJECT_PREFIX}${randomUUID()}` },
  ];
  const made = await generate(subject, {
    keyType: "ec",
    curve: "P-256",
    algorithm: "sha256",
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + 365 * 24 * 3600 * 1000),
    extensions: [
      // OpenSSL takes a self-signed certificate as the whole chain only when it may sign certificates.
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", digitalSignature: true, keyCertSign: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [
          ...LOOPBACK_NAMES.dns.map((value) => ({ type: 2 as const, value })),
          ...LOOPBACK_NAMES.ips.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  return { cert: made.cert, key: made.private };
}

/** The key pair file (key and certificate, PEM) and the certificate alone, in a folder. */
export function localTlsFiles(dir = localTlsDir()): { keyPairFile: string; certFile: string } {
  return { keyPairFile: path.join(dir, "localhost.pem"), certFile: path.join(dir, "localhost-cert.pem") };
}

/**
 * What NODE_EXTRA_CA_CERTS should name (Node takes one file): the local certificate, or, when the
 * developer set a file of their own, a bundle of both, so the host trusts that too.
 */
export function extraCaCertsFile(tls: LocalTls, inherited: string | undefined, dir = localTlsDir()): string {
  const bundle = path.join(dir, "extra-ca-bundle.pem");
  // The bundle itself comes back from a shell or a test worker that kept an earlier start's setting.
  if (!inherited?.trim() || inherited === tls.certFile || inherited === bundle) return tls.certFile;
  writeWhole(bundle, `${readFileSync(inherited, "utf8").trimEnd()}\n${tls.cert}`, { mode: 0o644 });
  return bundle;
}

/**
 * The local certificate, made on first use and again near its end. Processes making one at once
 * (parallel test workers) all use the first one linked into place.
 */
export async function loadOrCreateLocalTls(dir = localTlsDir()): Promise<LocalTls> {
  const { keyPairFile, certFile } = localTlsFiles(dir);
  const read = () => (existsSync(keyPairFile) ? split(readFileSync(keyPairFile, "utf8")) : undefined);
  let pair = read();
  if (pair === undefined || !isUsable(pair.cert)) {
    const made = await generateLocalCertificate();
    // An old or damaged file is replaced, unless another process has just made a usable one.
    const again = read();
    if (again === undefined || !isUsable(again.cert))
      writeWhole(keyPairFile, made.key + made.cert, { exclusive: !existsSync(keyPairFile) });
    pair = read();
    if (pair === undefined) throw new Error(`${keyPairFile} holds no certificate and key`);
  }
  if (!existsSync(certFile) || readFileSync(certFile, "utf8") !== pair.cert)
    writeWhole(certFile, pair.cert, { mode: 0o644 });
  return { certFile, keyPairFile, ...pair };
}
