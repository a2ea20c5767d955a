import { writeFileSync } from "node:fs";
import * as path from "node:path";
import { LOCAL_APP_ID_URI } from "../../client/cli/credentials";
import { LOCAL_APP_ID_URI as DEV_LOCAL_APP_ID_URI } from "../../dev/stand-ins/openid/principals";
import { parseFilter } from "../../src/event-routes/filter";
import { removeTempDirs, tempDir } from "../support/temp-dirs";
import { FUNCTION_KEY, MASTER_KEY, startTestHost, type TestHost } from "../support/test-host";
import { type CliRun, runTwin } from "./cli-runner";
import {
  ASSESSMENT_INPUT,
  clientFor,
  ENDPOINT_INPUT,
  IDENTITY_ENDPOINT_INPUT,
  instanceId,
  SAMPLE_PROFILE_CONTENT,
  SECRETS,
  SUBSCRIPTION_ID,
} from "./fixtures";

// `twin`, the client package's command line (client/cli/), run as built (dist/, which the global
// setup compiles) against a local host in keys mode: every command, its table and its JSON, its
// exit codes, and no key or secret in anything it prints.

const INSTANCE = instanceId("cli-twins");
const BAD_KEY = "not-the-function-key-4711";

let host: TestHost;
let folder: string;
const outputs: string[] = [];

/** Runs the CLI with the test host's address and, unless told otherwise, the function key. */
function twin(args: string[], options: { input?: string; key?: string | null } = {}): Promise<CliRun> {
  const key = options.key === undefined ? FUNCTION_KEY : options.key;
  const auth = key === null ? [] : ["--key", key];
  return runTwin([...args, "--base-url", host.baseUrl, ...auth], folder, outputs, options.input);
}

async function twinJson(args: string[], options: { input?: string; key?: string } = {}): Promise<unknown> {
  const run = await twin([...args, "--output", "json"], options);
  if (run.code !== 0) throw new Error(`exit ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

function file(name: string, value: unknown): string {
  const target = path.join(folder, name);
  writeFileSync(target, typeof value === "string" ? value : JSON.stringify(value));
  return target;
}

beforeAll(async () => {
  host = await startTestHost();
  folder = tempDir("twin-cli-");
});
afterAll(async () => {
  await host?.stop();
  removeTempDirs();
});

describe("help, version and usage errors", () => {
  it("answers --help at every level with usage, examples and the exit codes (exit 0)", async () => {
    const top = await twin(["--help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain("Usage: twin <group> <command>");
    for (const group of ["profiles", "endpoints", "routes", "role-assignments", "events", "assessments"]) {
      expect(top.stdout).toContain(`  ${group}`);
    }
    expect(top.stdout).toMatch(/4 {2}not found/);
    const group = await twin(["endpoints", "--help"]);
    expect(group.code).toBe(0);
    expect(group.stdout).toContain("Usage: twin endpoints <command>");
    expect(group.stdout).toMatch(/apply +create or replace an endpoint from a file/);
    const command = await twin(["events", "post", "--help"]);
    expect(command.code).toBe(0);
    expect(command.stdout).toContain("Usage: twin events post [options]");
    expect(command.stdout).toContain("--instance <instance id>");
    expect(command.stdout).toContain("Examples:");
    expect(command.stdout).toContain("Exit codes:");
  });

  it("prints its version", async () => {
    expect(await twin(["--version"])).toEqual({ code: 0, stdout: "0.1.0\n", stderr: "" });
  });

  it.each([
    [[], "Usage: twin <group> <command>"],
    [["profiles"], "Usage: twin profiles <command>"],
    [["frobnicate", "list"], "Unknown group: frobnicate"],
    [["profiles", "frob"], "Unknown command: twin profiles frob"],
    [["profiles", "list", "--bogus"], "Unknown option '--bogus'"],
    [["profiles", "show"], "Give the profile's name."],
    [["profiles", "show", "a", "b"], "Unexpected argument: b"],
    [["endpoints", "list"], "--instance is required."],
    [["endpoints", "list", "--instance", "/subscriptions/x"], "--instance must be an instance id"],
    [["profiles", "list", "--output", "yaml"], "--output takes table or json"],
    [["profiles", "apply", "--file", "missing.json"], "Cannot read missing.json"],
  ])("exits 2 for a usage error: %j", async (args, message) => {
    const run = await twin(args);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: "" });
    expect(run.stderr).toContain(message);
  });

  it("exits 2 for a file that is not JSON", async () => {
    const run = await twin(["profiles", "apply", "--file", file("broken.json", "{not json")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/broken\.json is not JSON/);
  });
});

describe("credentials", () => {
  it("exits 3 for a key the service refuses (401), without printing the key", async () => {
    const table = await twin(["profiles", "list"], { key: BAD_KEY });
    expect(table.code).toBe(3);
    expect(table.stderr).toMatch(/^error: 401 /);
    const json = await twin(["profiles", "list", "--output", "json"], { key: BAD_KEY });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stderr)).toEqual({
      error: { status: 401, code: "Unauthorized", message: expect.any(String) },
    });
    for (const run of [table, json]) expect(`${run.stdout}${run.stderr}`).not.toContain(BAD_KEY);
  });

  it("--local reads the address and the key from the env file", async () => {
    const env = file(
      "local.env",
      [
        `export BASE_URL=${host.baseUrl}`,
        `export FUNCTION_KEY='${FUNCTION_KEY}'`,
        `export MASTER_KEY='${MASTER_KEY}'`,
        "export STACK_AUTH_MODE=keys",
        "",
      ].join("\n"),
    );
    const run = await runTwin(["profiles", "list", "--local", "--local-env", env], folder, outputs);
    expect(run).toEqual({ code: 0, stdout: expect.stringMatching(/^(NAME {2}|No profiles\.)/), stderr: "" });
  });

  it("--local without the file: no stack to reach (exit code 1), naming the file and `npm start`", async () => {
    const run = await twin(["profiles", "list", "--local", "--local-env", "nowhere.env"], { key: null });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(path.join(folder, "nowhere.env"));
    expect(run.stderr).toContain("Start it with `npm start`");
  });

  it("the local app registration is the local stack's", () => {
    expect(LOCAL_APP_ID_URI).toBe(DEV_LOCAL_APP_ID_URI);
  });
});

describe("profiles", () => {
  it("apply creates then replaces, show and list print tables and JSON, delete then exits 4", async () => {
    const input = file("profile.json", {
      authenticationProfileName: "cli-sso",
      authenticationProfileContent: SAMPLE_PROFILE_CONTENT,
    });
    const created = await twin(["profiles", "apply", "--file", input]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Created profile cli-sso\n\n/);
    expect(created.stdout).toMatch(/^authenticationProfileContent +\{"AllowDBUserOverride"/m);
    const replaced = (await twinJson(["profiles", "apply", "--file", input])) as Record<string, unknown>;
    expect(replaced).toMatchObject({ id: "cli-sso", created: false, etag: expect.stringMatching(/^".+"$/) });

    const list = await twin(["profiles", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^NAME +CONTENT +LAST MODIFIED\n/);
    expect(list.stdout).toMatch(/^cli-sso +\{"AllowDBUserOverride"/m);
    const listed = (await twinJson(["profiles", "list"])) as { id: string }[];
    expect(listed.map(({ id }) => id)).toContain("cli-sso");

    const shown = await twin(["profiles", "show", "cli-sso"]);
    expect(shown.stdout).toMatch(/^systemData\.createdBy +default$/m);
    expect(await twinJson(["profiles", "show", "cli-sso"])).toEqual({
      id: "cli-sso",
      authenticationProfileName: "cli-sso",
      authenticationProfileContent: SAMPLE_PROFILE_CONTENT,
      etag: replaced.etag,
      systemData: expect.any(Object),
    });

    expect(await twin(["profiles", "delete", "cli-sso"])).toEqual({
      code: 0,
      stdout: "Deleted profile cli-sso\n",
      stderr: "",
    });
    const again = await twin(["profiles", "delete", "cli-sso"]);
    expect(again).toEqual({ code: 4, stdout: "", stderr: "error: No profile cli-sso: nothing to delete\n" });
    expect((await twin(["profiles", "delete", "cli-sso", "--ignore-not-found"])).code).toBe(0);
    expect(await twinJson(["profiles", "delete", "cli-sso", "--ignore-not-found"])).toEqual({
      id: "cli-sso",
      deleted: false,
    });
  });

  it("show of a missing profile exits 4 with the code, message and request id", async () => {
    const table = await twin(["profiles", "show", "never-made"]);
    expect(table.code).toBe(4);
    expect(table.stdout).toBe("");
    expect(table.stderr).toMatch(/^error: 404 \w+: .+\n(.|\n)*x-ms-request-id: \S+\n$/);
    const json = await twin(["profiles", "show", "never-made", "-o", "json"]);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stderr).error).toMatchObject({ status: 404, requestId: expect.any(String) });
  });

  it("a refusal (400) exits 1 with its target", async () => {
    const input = file("leaky.json", { authenticationProfileContent: '{"Password":"hunter2"}' });
    const run = await twin(["profiles", "apply", "--file", input, "--name", "leaky"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: 400 /);
    expect(run.stderr).toMatch(/^target: \S+/m);
  });
});

describe("endpoints, routes and events", () => {
  it("key-based and identity-based endpoints: apply, list, show (masked), delete", async () => {
    const keyBased = file("orders.json", { name: "orders", ...ENDPOINT_INPUT });
    const created = await twin(["endpoints", "apply", "--file", keyBased, "--instance", INSTANCE]);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`Created endpoint ${INSTANCE}/endpoints/orders`);
    expect(created.stdout).toMatch(/SharedAccessKey=\*\*\*/);
    const identity = file("by-identity.json", { ...IDENTITY_ENDPOINT_INPUT, twinsInstanceId: INSTANCE });
    const second = (await twinJson(["endpoints", "apply", "--file", identity, "--name", "by-identity"])) as {
      authenticationType: string;
      created: boolean;
    };
    expect(second).toMatchObject({ authenticationType: "IdentityBased", created: true });

    const list = await twin(["endpoints", "list", "--instance", INSTANCE]);
    expect(list.stdout).toMatch(/^NAME +KIND +TARGET +DEAD LETTERS\n/);
    expect(list.stdout).toMatch(
      /^by-identity +IdentityBased +sb:\/\/twins-ns\.servicebus\.windows\.net\/twin-events +https:\/\/deadletters\.blob\.core\.windows\.net\/dead-letters$/m,
    );
    expect(list.stdout).toMatch(
      /^orders +KeyBased +sb:\/\/twins-ns\.servicebus\.windows\.net\/twin-events +https:/m,
    );
    const listed = (await twinJson(["endpoints", "list", "--instance", INSTANCE])) as { name: string }[];
    expect(listed.map(({ name }) => name).sort()).toEqual(["by-identity", "orders"]);

    const byId = (await twinJson(["endpoints", "show", `${INSTANCE}/endpoints/orders`])) as Record<
      string,
      string
    >;
    expect(byId.queuePrimaryConnectionString).toContain("SharedAccessKey=***");
    expect(byId.deadLetterStorageSecret).toMatch(/\?\*\*\*$/);
    const shown = await twin(["endpoints", "show", "orders", "--instance", INSTANCE]);
    expect(shown.stdout).toMatch(/^queuePrimaryConnectionString +Endpoint=sb:/m);

    expect((await twin(["endpoints", "delete", "by-identity", "--instance", INSTANCE])).code).toBe(0);
    const missing = await twin(["endpoints", "show", "by-identity", "--instance", INSTANCE]);
    expect(missing.code).toBe(4);
  });

  it("routes: apply, list, show, delete", async () => {
    const route = file("hot.json", { name: "hot", endpointName: "orders", filter: "$body.temperature > 30" });
    const created = await twin(["routes", "apply", "--file", route, "--instance", INSTANCE]);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`Created event route ${INSTANCE}/eventRoutes/hot`);
    const list = await twin(["routes", "list", "--instance", INSTANCE]);
    expect(list.stdout).toBe("NAME  ENDPOINT  FILTER\nhot   orders    $body.temperature > 30\n");
    expect(await twinJson(["routes", "show", `${INSTANCE}/eventRoutes/hot`])).toMatchObject({
      name: "hot",
      endpointName: "orders",
      filter: "$body.temperature > 30",
    });
    const badFilter = file("bad.json", { endpointName: "orders", filter: "temperature >" });
    const refused = await twin([
      "routes",
      "apply",
      "--file",
      badFilter,
      "--instance",
      INSTANCE,
      "--name",
      "bad",
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("target: filter");
    expect(await twinJson(["routes", "delete", "hot", "--instance", INSTANCE])).toEqual({
      id: `${INSTANCE}/eventRoutes/hot`,
      deleted: true,
    });
    expect((await twin(["routes", "delete", "hot", "--instance", INSTANCE])).code).toBe(4);
  });

  it("routes test: a match, a miss with its reason, --expect-match, a filter that does not parse, JSON", async () => {
    const event = {
      id: "try-1",
      source: "/cli",
      specversion: "1.0",
      type: "Twin.Update",
      data: { temperature: 35 },
    };
    const eventFile = file("try.json", event);
    const hot = "type = 'Twin.Update' AND $body.temperature > 30";
    const matches = await twin([
      "routes",
      "test",
      "--instance",
      INSTANCE,
      "--filter",
      hot,
      "--event",
      eventFile,
    ]);
    expect(matches).toEqual({ code: 0, stdout: "matches\n", stderr: "" });

    const miss = await twin(
      ["routes", "test", "--instance", INSTANCE, "--filter", "type = 'Twin.Create'", "--event", "-"],
      {
        input: JSON.stringify(event),
      },
    );
    expect(miss.code).toBe(0);
    expect(miss.stdout).toBe(
      "does not match: type = 'Twin.Create' was false: the event's type is 'Twin.Update'\n",
    );
    const expected = await twin([
      "routes",
      "test",
      "--instance",
      INSTANCE,
      "--filter-file",
      file("create.filter", "type = 'Twin.Create'\n"),
      "--event",
      eventFile,
      "--expect-match",
    ]);
    expect(expected.code).toBe(1);
    expect(expected.stderr).toContain("does not match: type = 'Twin.Create' was false");
    expect(
      (
        await twin([
          "routes",
          "test",
          "--instance",
          INSTANCE,
          "--filter",
          hot,
          "--event",
          eventFile,
          "--expect-match",
        ])
      ).code,
    ).toBe(0);

    let parserMessage = "";
    try {
      parseFilter("temperature >");
    } catch (error) {
      parserMessage = (error as Error).message;
    }
    expect(parserMessage).not.toBe("");
    const bad = await twin([
      "routes",
      "test",
      "--instance",
      INSTANCE,
      "--filter",
      "temperature >",
      "--event",
      eventFile,
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: 400 /);
    // The parser's words, as the service words them for the field, and as a route PUT gets them.
    expect(bad.stderr).toContain(parserMessage.slice(parserMessage.indexOf(" is not valid at position 1")));
    expect(bad.stderr).toMatch(/^target: filter$/m);
    const put = await twin([
      "routes",
      "apply",
      "--file",
      file("bad-route.json", { endpointName: "orders", filter: "temperature >" }),
      "--instance",
      INSTANCE,
      "--name",
      "bad",
    ]);
    expect(put.code).toBe(1);
    expect(bad.stderr.split("\n")[0]).toBe(put.stderr.split("\n")[0]);

    expect(
      await twinJson(["routes", "test", "--instance", INSTANCE, "--filter", hot, "--event", eventFile]),
    ).toEqual({
      matches: true,
    });
    expect(
      await twinJson([
        "routes",
        "test",
        "--instance",
        INSTANCE,
        "--filter",
        "$body.temperature < 30",
        "--event",
        eventFile,
      ]),
    ).toEqual({ matches: false, reason: expect.stringContaining("$body.temperature < 30 was false") });

    const help = await twin(["routes", "test", "--help"]);
    expect(help.stdout).toContain("Usage: twin routes test [options]");
    expect(help.stdout).toContain("--expect-match");
  });

  it("events post: one event from a file, a batch from standard input", async () => {
    const event = { id: "cli-1", source: "/cli", specversion: "1.0", type: "Twin.Update", data: { t: 1 } };
    const one = await twin(["events", "post", "--instance", INSTANCE, "--file", file("event.json", event)]);
    expect(one).toEqual({ code: 0, stdout: "Accepted 1 event\n", stderr: "" });
    const batch = JSON.stringify([event, { ...event, id: "cli-2" }]);
    expect(
      await twinJson(["events", "post", "--instance", INSTANCE, "--file", "-"], { input: batch }),
    ).toEqual({
      accepted: 2,
    });
    const invalid = await twin(["events", "post", "--instance", INSTANCE, "--file", "-"], {
      input: '{"id":1}',
    });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^error: 400 /);
  });
});

describe("role assignments and assessments", () => {
  it("role assignments with the master key: apply, list, show, delete", async () => {
    const name = "6c7e1c0a-1111-4222-8333-444455556666";
    const input = file("assignment.json", {
      principalId: "00000000-0000-0000-0000-00000000beef",
      roleDefinitionName: "Reader",
      principalType: "ServicePrincipal",
    });
    const key = MASTER_KEY;
    const scope = "/authenticationProfiles";
    const created = await twin(
      ["role-assignments", "apply", "--file", input, "--at", scope, "--name", name],
      {
        key,
      },
    );
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(
      `Created role assignment ${scope}/providers/Microsoft.Authorization/roleAssignments/${name}`,
    );
    const list = await twin(["role-assignments", "list", "--at", scope], { key });
    expect(list.stdout).toMatch(/^NAME +ROLE +PRINCIPAL +TYPE +SCOPE\n/);
    expect(list.stdout).toContain(
      `${name}  Reader  00000000-0000-0000-0000-00000000beef  ServicePrincipal  ${scope}`,
    );
    const shown = (await twinJson(["role-assignments", "show", name, "--at", scope], { key })) as Record<
      string,
      unknown
    >;
    expect(shown).toMatchObject({ name, roleDefinitionName: "Reader", scope });
    // What show printed, applied again: the same assignment, found as it is.
    const again = (await twinJson(["role-assignments", "apply", "--file", file("shown.json", shown)], {
      key,
    })) as { created: boolean };
    expect(again.created).toBe(false);
    const deleted = await twin(["role-assignments", "delete", shown.id as string], { key });
    expect(deleted.code).toBe(0);
    expect((await twin(["role-assignments", "show", name, "--at", scope], { key })).code).toBe(4);
    expect((await twin(["role-assignments", "list"], { key })).code).toBe(2);
  });

  it("assessments: list and show, by name and by id", async () => {
    const ref = { resourceGroupName: "rg-cli", projectName: "cli-project", assessmentName: "web-tier" };
    await clientFor(host, { subscriptionId: SUBSCRIPTION_ID, key: MASTER_KEY }).assessments.put(
      ref,
      ASSESSMENT_INPUT,
    );
    const project = ["--subscription", SUBSCRIPTION_ID, "-g", "rg-cli", "--project", "cli-project"];
    const list = await twin(["assessments", "list", ...project]);
    expect(list.stdout).toBe(
      "NAME      STATE      STATUS     MONTHLY COST  MACHINES\nweb-tier  Succeeded  Completed  412.5 EUR     3\n",
    );
    const shown = (await twinJson(["assessments", "show", "web-tier", ...project])) as { id: string };
    expect(shown).toMatchObject({ name: "web-tier", details: { totalMonthlyCost: 412.5 } });
    expect(await twinJson(["assessments", "show", shown.id])).toMatchObject({ id: shown.id });
    const table = await twin(["assessments", "show", shown.id]);
    expect(table.stdout).toMatch(/^details\.totalMonthlyCost +412\.5$/m);
    expect((await twin(["assessments", "show", "none", ...project])).code).toBe(4);
    expect((await twin(["assessments", "list", "-g", "rg-cli", "--project", "p"])).code).toBe(2);
  });
});

afterAll(() => {
  // Every output of every run: no sample secret, and neither key, ever printed.
  const printed = outputs.join("\n");
  expect(printed.length).toBeGreaterThan(1000);
  for (const secret of [...SECRETS, FUNCTION_KEY, MASTER_KEY, BAD_KEY]) expect(printed).not.toContain(secret);
});
