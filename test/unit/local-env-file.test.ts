import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import * as path from "node:path";
import {
  localEnvValues,
  readLocalEnvFile,
  updateLocalEnvFile,
  writeLocalEnvFile,
} from "../../dev/local-env-file";
import { planStack } from "../../dev/stack-plan";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// .local/local.env, which `npm start` writes for the README's examples and the helper commands.

afterAll(removeTempDirs);

// Keys with characters a shell would otherwise read: quotes, blanks, $, ;.
const dataDir = tempDir("local-env-file-");
const plan = planStack({ FUNCTION_KEY: "it's $HOME; `x`", MASTER_KEY: "m k", LOCAL_DATA_DIR: dataDir });
const deadLetterUrl = "http://127.0.0.1:10000/devstoreaccount1/dead-letters?sv=1&sp=racwl&sig=a%2Bb%3D";

it("is written owner-only in the data folder, and a POSIX shell and the helpers read it exactly", () => {
  const file = writeLocalEnvFile(plan, deadLetterUrl, "a.b.c");
  expect(file).toBe(path.join(dataDir, "local.env"));
  expect(statSync(file).mode & 0o077).toBe(0);
  const expected = localEnvValues(plan, deadLetterUrl, "a.b.c");
  const names = Object.keys(expected);
  const script = `. "$0" && printf '%s\\0' ${names.map((n) => `"$${n}"`).join(" ")}`;
  const printed = execFileSync("sh", ["-c", script, file], { encoding: "utf8", env: {} }).split("\0");
  expect(Object.fromEntries(names.map((name, index) => [name, printed[index]]))).toEqual(expected);
  expect(readLocalEnvFile({ LOCAL_DATA_DIR: dataDir })).toEqual(expected);
  expect(expected).toMatchObject({ AUTH_AUTHORITY: plan.issuer?.authority, TOKEN: "a.b.c" });
  expect(expected.UNREACHABLE_CONNECTION).toMatch(
    /^Endpoint=sb:\/\/127\.0\.0\.1:1\/;.*EntityPath=example-topic$/,
  );
  expect(expected.STACK_PORTS).toMatch(/^PORT=7071 AZURITE_BLOB_PORT=10000 /);
  // No issuer values under AUTH_MODE=keys, and no dead-letter URL without Azurite.
  const keys = localEnvValues(
    planStack({ FUNCTION_KEY: "f", MASTER_KEY: "m", AUTH_MODE: "keys" }),
    undefined,
    "t",
  );
  for (const name of ["AUTH_AUTHORITY", "DEVELOPER_OBJECT_ID", "TOKEN", "DEAD_LETTER_URL"]) {
    expect(keys).not.toHaveProperty(name);
  }
});

// Renewing TOKEN in a file npm start wrote, keeping the rest: test/integration/local-token.test.ts.
it("is never made by a renewal (npm run token) when npm start wrote none", () => {
  const own = tempDir("local-env-file-");
  expect(updateLocalEnvFile({ TOKEN: "t" }, { LOCAL_DATA_DIR: own })).toBe(false);
  expect(readdirSync(own)).toEqual([]);
});
