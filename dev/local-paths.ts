import { randomUUID } from "node:crypto";
import { linkSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { findHostJson } from "./host-json";

/** The repository root (where host.json is), the same whether running from dev/ or dist/dev/. */
export function projectRoot(): string {
  return path.dirname(findHostJson());
}

/** Where local runs keep their data; LOCAL_DATA_DIR lets tests use a throw-away folder. */
export function localDataDir(env: NodeJS.ProcessEnv): string {
  return path.resolve(projectRoot(), env.LOCAL_DATA_DIR || ".local");
}

export const azuriteDataDir = (env: NodeJS.ProcessEnv) => path.join(localDataDir(env), "azurite");
/** The local OpenID issuer's signing key (a private JWK), made by the first `npm start`. */
export const issuerKeyFile = (env: NodeJS.ProcessEnv) => path.join(localDataDir(env), "issuer-key.json");

/** A path as a command run in the repository root would name it: relative when inside it. */
export function displayPath(file: string): string {
  const relative = path.relative(projectRoot(), file);
  return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
}

/** The machine's loopback certificate, not a stack's data: the repository's `.local/tls`, whatever LOCAL_DATA_DIR says. */
export function localTlsDir(): string {
  return path.join(projectRoot(), ".local", "tls");
}

/**
 * Written aside (owner-only unless `mode` says otherwise), then renamed into place: neither a crash
 * nor a reader sees half a file. With `exclusive`, linked instead: of processes writing at once,
 * the first wins and the others leave it.
 */
export function writeWhole(file: string, text: string, { mode = 0o600, exclusive = false } = {}): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const aside = `${file}.${randomUUID()}.tmp`;
  writeFileSync(aside, text, { mode, flag: "wx" });
  try {
    if (exclusive) linkSync(aside, file);
    else renameSync(aside, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(aside, { force: true });
  }
}
