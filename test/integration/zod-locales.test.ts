import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { z } from "zod";
import { assessmentPutSchema } from "../../src/assessments/assessment-schema";
import { endpointPutSchema } from "../../src/endpoints/endpoint-schema";
import { parseOrThrow } from "../../src/http/validation";
import { profilePutSchema } from "../../src/profiles/profile-schema";
import { LOAD_SETTINGS } from "../support/load-settings";
import { thrown } from "../support/thrown";

// The product loads zod's English locale only (src/common/zod-locales-on-demand.ts): a stand-in
// for zod's locales index goes into Node's module cache before zod loads. Jest's module registry
// ignores that cache, so each check runs the built code (global setup builds dist/) in a fresh
// node and compares what it sees with zod as published, here.
const ROOT = path.join(__dirname, "..", "..");
const DIST = path.join(ROOT, "dist");

const settings = LOAD_SETTINGS;

/** Runs `script` (CommonJS; `dist`, `locales()` and `print()` in scope) in a fresh node; what it printed. */
function run(script: string): unknown {
  const probe = `
const dist = ${JSON.stringify(DIST)};
/** The locale files loaded so far, the index (or its stand-in) aside. */
const locales = () => Object.keys(require.cache)
  .filter((file) => file.includes("/node_modules/zod/v4/locales/") && !file.endsWith("/index.cjs"))
  .map((file) => path.basename(file));
const path = require("node:path");
let printed;
const print = (value) => { printed = value; };
${script}
process.stdout.write(JSON.stringify(printed));`;
  const out = execFileSync(process.execPath, ["-e", probe], {
    cwd: ROOT,
    env: { ...process.env, ...settings },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  return JSON.parse(out);
}

const LOAD_ENTRIES = `
for (const file of require("node:fs").readdirSync(dist + "/functions").filter((name) => name.endsWith(".js"))) {
  require(dist + "/functions/" + file);
}`;

/** The 400's details for bad bodies: the product's own wording and its plain words for zod's issues. */
const BAD_BODIES: [string, unknown][] = [
  ["profile", { authenticationProfileContent: 7, extra: true }],
  ["profile", { authenticationProfileName: "no spaces", authenticationProfileContent: "{}" }],
  ["profile", "not an object"],
  ["assessment", { properties: { score: "high" } }],
  ["assessment", {}],
  ["endpoint", { properties: [], tags: 7 }],
  ["endpoint", { connectionString: "x".repeat(5000), unknown: null }],
];

const SCHEMAS: Record<string, z.ZodType> = {
  profile: profilePutSchema,
  assessment: assessmentPutSchema,
  endpoint: endpointPutSchema,
};

function detailsOf(schema: z.ZodType, body: unknown): unknown {
  return (thrown(() => parseOrThrow(schema, body)) as { details: unknown }).details;
}

describe("zod's locales, on demand", () => {
  it("loading every entry point loads zod's English locale and no other", () => {
    expect(run(`${LOAD_ENTRIES} print(locales());`)).toEqual(["en.cjs"]);
  });

  it("the 400s for bad bodies are word for word those of zod as published, in the product's words", () => {
    const published = BAD_BODIES.map(([kind, body]) => detailsOf(SCHEMAS[kind] as z.ZodType, body));
    const built = run(`${LOAD_ENTRIES}
const { parseOrThrow } = require(dist + "/src/http/validation");
const schemas = {
  profile: require(dist + "/src/profiles/profile-schema").profilePutSchema,
  assessment: require(dist + "/src/assessments/assessment-schema").assessmentPutSchema,
  endpoint: require(dist + "/src/endpoints/endpoint-schema").endpointPutSchema,
};
print(${JSON.stringify(BAD_BODIES)}.map(([kind, body]) => {
  try { parseOrThrow(schemas[kind], body); return "parsed"; } catch (error) { return error.details; }
}));`);
    expect(built).toEqual(published);
    // zod's issues in src/common/zod-messages.ts's words, not its locale's.
    expect(JSON.stringify(built)).toContain("must be a string, but it is a number");
    expect(JSON.stringify(built)).not.toMatch(
      /Invalid input|Invalid option|Too (?:big|small)|Unrecognized key/,
    );
  });

  it("z.locales still gives every locale: the first read loads the real index", () => {
    const built = run(`${LOAD_ENTRIES}
const { z } = require(dist + "/src/common/zod");
const before = locales().length;
const names = Object.keys(z.locales).sort();
const product = z.string().safeParse(1).error.issues[0].message;
// The product's own words (customError) outrank any locale: set aside, the locale speaks.
const customError = z.config().customError;
z.config({ customError: undefined });
z.config(z.locales.fr());
const french = z.string().safeParse(1).error.issues[0].message;
z.config(z.locales.en());
const english = z.string().safeParse(1).error.issues[0].message;
z.config({ customError });
print({ before, names, product, french, english,
  same: z.core.locales === z.locales, loaded: locales().length, fr: typeof z.locales.fr, esModule: z.locales.__esModule });`) as Record<
      string,
      unknown
    >;
    expect(built.before).toBe(1);
    expect(built.names).toEqual(Object.keys(z.locales).sort());
    expect(built.product).toBe("must be a string, but it is a number");
    expect(built.french).toBe(frenchMessage());
    expect(built.french).not.toBe(built.english);
    expect(built.english).toBe("Invalid input: expected string, received number");
    expect(built.same).toBe(true);
    expect(built.loaded).toBeGreaterThan(60);
    expect(built.fr).toBe("function");
    expect(built.esModule).toBe(true);
  });

  it("zod loaded before the product (the stand-in too late): every locale, and the same messages", () => {
    const built = run(`
const published = require("zod");
${LOAD_ENTRIES}
const { z } = require(dist + "/src/common/zod");
print({ loaded: locales().length, same: z === published.z,
  message: z.object({ a: z.number().max(3) }).strict().safeParse({ a: 5, b: 1 }).error.issues.map((i) => i.message) });`) as Record<
      string,
      unknown
    >;
    expect(built.loaded).toBeGreaterThan(60);
    expect(built.same).toBe(true);
    expect(built.message).toEqual(["must be at most 3", "has a member that is not known: 'b'"]);
  });

  it("installing twice changes nothing: the stand-in stays until the first read", () => {
    const built = run(`
const { installZodLocalesOnDemand } = require(dist + "/src/common/zod-locales-on-demand");
installZodLocalesOnDemand();
${LOAD_ENTRIES}
installZodLocalesOnDemand();
print(locales());`);
    expect(built).toEqual(["en.cjs"]);
  });
});

/** zod's French message for a number where a string is expected, from zod as published. */
function frenchMessage(): string | undefined {
  const { customError } = z.config();
  z.config({ customError: undefined });
  z.config(z.locales.fr());
  try {
    return z.string().safeParse(1).error?.issues[0]?.message;
  } finally {
    z.config(z.locales.en());
    z.config({ customError });
  }
}
