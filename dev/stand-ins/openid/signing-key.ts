import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type JsonWebKey,
  type KeyObject,
  randomUUID,
} from "node:crypto";
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import * as path from "node:path";
import { calculateJwkThumbprint, type JWK } from "jose";
import { displayPath } from "../../local-paths";
import { StartupError } from "../../startup-error";

/** An RSA key the issuer signs with, and what its key set publishes of it. */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  /** The public half as the key set serves it: `kid`, `use: "sig"`, `alg: "RS256"`. */
  publicJwk: JWK;
}

/** The file `npm start` keeps the local issuer's key in, beside the rest of the local data. */
export const ISSUER_KEY_FILE_NAME = "issuer-key.json";

async function fromPrivateKey(privateKey: KeyObject): Promise<SigningKey> {
  const { kty, n, e } = createPublicKey(privateKey).export({ format: "jwk" });
  // The RFC 7638 thumbprint: the same key always gets the same kid, a new key a new one.
  const kid = await calculateJwkThumbprint({ kty, n, e } as JWK);
  return { kid, privateKey, publicJwk: { kty, n, e, kid, use: "sig", alg: "RS256" } as JWK };
}

/** A fresh 2048-bit RSA key, kept in memory only. */
export function generateSigningKey(): Promise<SigningKey> {
  return fromPrivateKey(generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey);
}

/** The private JWK as the key file holds it. */
export function privateJwk(key: SigningKey): JWK {
  return { ...(key.privateKey.export({ format: "jwk" }) as JWK), kid: key.kid, use: "sig", alg: "RS256" };
}

/** The key in a key file; a clear message when it is missing or is not an RSA private key. */
export async function readSigningKeyFile(file: string): Promise<SigningKey> {
  if (!existsSync(file)) {
    throw new StartupError(
      `No local issuer key at ${displayPath(file)}: run \`npm start\` first (it creates one).`,
    );
  }
  let privateKey: KeyObject;
  try {
    const jwk = JSON.parse(readFileSync(file, "utf8")) as JWK;
    if (jwk?.kty !== "RSA" || typeof jwk.d !== "string") throw new Error("not an RSA private key");
    privateKey = createPrivateKey({ key: jwk as JsonWebKey, format: "jwk" });
  } catch (error) {
    throw new StartupError(
      `${displayPath(file)} does not hold the local issuer's RSA private key (${(error as Error).message}); delete it and \`npm start\` makes a new one (tokens signed with the old key stop working).`,
    );
  }
  // The key is a secret: readable by its owner only, also if someone loosened the file's mode.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return fromPrivateKey(privateKey);
}

/**
 * The key in the file, made on first use. The new file appears complete or not at all (written
 * aside, then linked into place), and when two processes make one at once, the first link wins
 * and both use that key.
 */
export async function loadOrCreateSigningKeyFile(
  file: string,
): Promise<{ key: SigningKey; created: boolean }> {
  if (existsSync(file)) return { key: await readSigningKeyFile(file), created: false };
  mkdirSync(path.dirname(file), { recursive: true });
  const key = await generateSigningKey();
  const aside = `${file}.${randomUUID()}.tmp`;
  writeFileSync(aside, `${JSON.stringify(privateJwk(key))}\n`, { mode: 0o600, flag: "wx" });
  let created = true;
  try {
    linkSync(aside, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    created = false;
  } finally {
    unlinkSync(aside);
  }
  return created ? { key, created } : { key: await readSigningKeyFile(file), created };
}
