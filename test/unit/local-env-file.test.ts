import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  localEnvValues,
  readLocalEnvFile,
  updateLocalEnvFile,
  writeLocalEnvFile,
} from "../../dev/local-env-file";
import { planStack } from "../../dev/stack-plan";

// .local/local.env, which `npm start` writes for the README's examples: a shell sources it, and
// `npm run receive` / `npm run dead-letters` read it, and both must see the values as written.

const dataDir = mkdtempSync(path.join(os.tmpdir(), "local-env-file-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// Keys with characters a shell would otherwise read: quotes, blanks, $, ;.
const plan = planStack({ FUNCTION_KEY: "it's $HOME; `x`", MASTER_KEY: "m k", LOCAL_DATA_DIR: dataDir });
const deadLetterUrl = "http://127.0.0.1:10000/devstoreaccount1/dead-letters?sv=1&sp=racwl&sig=a%2Bb%3D";

describe("the local env file", () => {
  const file = writeLocalEnvFile(plan, deadLetterUrl);

  it("is written in the data folder, readable by its owner only", () => {
    expect(file).toBe(path.join(dataDir, "local.env"));
    expect(statSync(file).mode & 0o077).toBe(0);
  });

  it("gives a POSIX shell the values exactly", () => {
    const expected = localEnvValues(plan, deadLetterUrl);
    const names = Object.keys(expected);
    const printed = execFileSync(
      "sh",
      ["-c", `. "$0" && printf '%s\\0' ${names.map((name) => `"$${name}"`).join(" ")}`, file],
      { encoding: "utf8", env: {} },
    );
    expect(
      Object.fromEntries(
        printed
          .split("\0")
          .slice(0, -1)
          .map((value, index) => [names[index], value]),
      ),
    ).toEqual(expected);
  });

  it("reads back as written", () => {
    expect(readLocalEnvFile({ LOCAL_DATA_DIR: dataDir })).toEqual(localEnvValues(plan, deadLetterUrl));
  });

  it("names the example topic, a connection nothing answers on, and no dead-letter URL without Azurite", () => {
    const values = localEnvValues(plan, undefined);
    expect(values.EXAMPLE_TOPIC).toBe("example-topic");
    expect(values.SERVICEBUS_CONNECTION).toMatch(
      /^Endpoint=sb:\/\/127\.0\.0\.1:5672\/;.*EntityPath=example-topic$/,
    );
    expect(values.UNREACHABLE_CONNECTION).toMatch(
      /^Endpoint=sb:\/\/127\.0\.0\.1:1\/;.*EntityPath=example-topic$/,
    );
    expect(values).not.toHaveProperty("DEAD_LETTER_URL");
  });
});

describe("the local issuer's values", () => {
  it("are the authority, the developer's object id and token; none under AUTH_MODE=keys", () => {
    const values = localEnvValues(plan, undefined, "a.b.c");
    expect(values).toMatchObject({
      AUTH_AUTHORITY: plan.issuer?.authority,
      DEVELOPER_OBJECT_ID: "54ba1103-395e-45f6-985f-db426ccf6c0b",
      TOKEN: "a.b.c",
    });
    const keysPlan = planStack({ FUNCTION_KEY: "f", MASTER_KEY: "m", AUTH_MODE: "keys" });
    const keysValues = localEnvValues(keysPlan, undefined, "a.b.c");
    for (const name of ["AUTH_AUTHORITY", "DEVELOPER_OBJECT_ID", "TOKEN"])
      expect(keysValues).not.toHaveProperty(name);
  });

  it("renews one value in place, keeping the others and the owner-only mode", () => {
    const own = mkdtempSync(path.join(os.tmpdir(), "local-env-file-"));
    try {
      const ownPlan = planStack({ FUNCTION_KEY: "f k", MASTER_KEY: "m", LOCAL_DATA_DIR: own });
      const file = writeLocalEnvFile(ownPlan, deadLetterUrl, "old.token.x");
      expect(updateLocalEnvFile({ TOKEN: "new.token.y" }, { LOCAL_DATA_DIR: own })).toBe(true);
      expect(readLocalEnvFile({ LOCAL_DATA_DIR: own })).toEqual(
        localEnvValues(ownPlan, deadLetterUrl, "new.token.y"),
      );
      expect(statSync(file).mode & 0o077).toBe(0);
      expect(readdirSync(own)).toEqual(["local.env"]);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it("are not written when there is no file to renew", () => {
    const own = mkdtempSync(path.join(os.tmpdir(), "local-env-file-"));
    try {
      expect(updateLocalEnvFile({ TOKEN: "t" }, { LOCAL_DATA_DIR: own })).toBe(false);
      expect(readdirSync(own)).toEqual([]);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});

describe("npm start's Service Bus stand-in", () => {
  it("makes the example subscription, besides any the developer asks for", () => {
    expect(plan.settings.SERVICEBUS_SUBSCRIPTIONS).toBe("example-topic/example-sub");
    const own = planStack({ FUNCTION_KEY: "f", MASTER_KEY: "m", SERVICEBUS_SUBSCRIPTIONS: "orders/audit" });
    expect(own.settings.SERVICEBUS_SUBSCRIPTIONS).toBe("orders/audit,example-topic/example-sub");
  });
});
