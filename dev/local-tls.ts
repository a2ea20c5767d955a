import { randomUUID, X509Certificate } from "node:crypto";
import {
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import * as path from "node:path";
import { localTlsDir } from "./local-paths";

/**
 * The local TLS certificate for loopback: the Service Bus stand-in's AMQPS listener and Azurite's
 * HTTPS blob service present it, and processes that must trust it get NODE_EXTRA_CA_CERTS = its
 * file (Node reads that at start only). It is self-signed and its own trust anchor: a CA
 * certificate whose names are the loopback ones, so Node accepts it without an intermediate.
 */
export interface LocalTls {
  /** The certificate alone (PEM): NODE_EXTRA_CA_CERTS. */
  certFile: string;
  /** Private key and certificate (PEM), for servers that read files (Azurite's --cert / --key). */
  keyPairFile: string;
  cert: string;
  key: string;
}

/** The names every client of a loopback listener may use. */
export const LOOPBACK_NAMES = { dns: ["localhost"], ips: ["127.0.0.1", "::1"] } as const;
const VALIDITY_DAYS = 365;
/** The start of each local certificate's organization name; a random id follows. */
const SUBJECT_PREFIX = "twin-resource-service local ";
/** A certificate this close to its end is replaced at start, so no run sees it expire. */
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
    // One made before subjects were unique (see generateLocalCertificate) is made again.
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
  const notAfter = new Date(now.getTime() + VALIDITY_DAYS * 24 * 3600 * 1000);
  // selfsigned (maintained; 5.x builds on @peculiar/x509 and WebCrypto, pure JavaScript): the
  // certificate is made in-process, so no openssl binary is needed on a developer's or CI's
  // machine. Loaded only to make one (rarely): it takes a while to load, and reading needs Node alone.
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
    notAfterDate: notAfter,
    extensions: [
      // Its own trust anchor: OpenSSL accepts a self-signed certificate from the trust store as the
      // whole chain only when it may sign certificates.
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

/** The developer's own extra CA certificates and the local certificate, in one file (NODE_EXTRA_CA_CERTS takes one). */
export function caBundleFile(dir = localTlsDir()): string {
  return path.join(dir, "extra-ca-bundle.pem");
}

/** Writes the bundle of `inheritedCaFile` and the local certificate; returns its path. */
export function writeCaBundle(tls: LocalTls, inheritedCaFile: string, dir = localTlsDir()): string {
  const file = caBundleFile(dir);
  const inherited = readFileSync(inheritedCaFile, "utf8");
  writeWhole(file, `${inherited.trimEnd()}\n${tls.cert}`, 0o644);
  return file;
}

/** Writes a file complete or not at all: aside, then renamed into place. */
function writeWhole(file: string, text: string, mode: number): void {
  const aside = `${file}.${randomUUID()}.tmp`;
  writeFileSync(aside, text, { mode, flag: "wx" });
  renameSync(aside, file);
}

/**
 * The local certificate, made on first use and again when it nears its end. The key pair file
 * appears complete or not at all (written aside, then linked into place), so when two processes
 * make one at once (parallel test workers), the first link wins and both use that one.
 */
export async function loadOrCreateLocalTls(dir = localTlsDir()): Promise<LocalTls> {
  const { keyPairFile, certFile } = localTlsFiles(dir);
  mkdirSync(path.dirname(keyPairFile), { recursive: true });
  let pair = existsSync(keyPairFile) ? split(readFileSync(keyPairFile, "utf8")) : undefined;
  if (pair === undefined || !isUsable(pair.cert)) {
    const made = await generateLocalCertificate();
    const aside = `${keyPairFile}.${randomUUID()}.tmp`;
    writeFileSync(aside, `${made.key}${made.cert}`, { mode: 0o600, flag: "wx" });
    try {
      // An old or damaged file is replaced; a usable one another process just made wins.
      if (pair !== undefined || existsSync(keyPairFile)) {
        const again = existsSync(keyPairFile) ? split(readFileSync(keyPairFile, "utf8")) : undefined;
        if (again === undefined || !isUsable(again.cert)) renameSync(aside, keyPairFile);
      } else {
        try {
          linkSync(aside, keyPairFile);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        }
      }
    } finally {
      if (existsSync(aside)) unlinkSync(aside);
    }
    pair = split(readFileSync(keyPairFile, "utf8"));
    if (pair === undefined) throw new Error(`${keyPairFile} holds no certificate and key`);
  }
  if (!existsSync(certFile) || readFileSync(certFile, "utf8") !== pair.cert) {
    writeWhole(certFile, pair.cert, 0o644);
  }
  return { certFile, keyPairFile, ...pair };
}
