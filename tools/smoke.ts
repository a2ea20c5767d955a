import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import type { AccessToken, TokenCredential } from "@azure/core-auth";
import { DefaultAzureCredential } from "@azure/identity";
import { parseEndpointId, randomSuffix, ServiceError, TwinServiceClient } from "../client";
import { defaultScope } from "../client/cli/credentials";
import { LOCAL_APP_ID_URI } from "../dev/stand-ins/openid/principals";

/**
 * `npm run smoke -- --base-url https://<app>.azurewebsites.net`: after a deployment, checks over the
 * wire that the service answers, that a token of DefaultAzureCredential is accepted, and that a
 * profile can be created, read back and deleted (a 404 after); with --endpoint, also that an event
 * for that endpoint's instance is accepted. One line per step, ✓ or ✗; exit code 0 when every step
 * passed, else 1. The profile it creates is deleted whatever happens, and a failed delete is
 * reported with what to delete by hand. Tokens are never printed.
 *
 * SMOKE_BEARER_TOKEN, when set, is used as the token instead of DefaultAzureCredential (the tests
 * run it against the local stack, whose issuer DefaultAzureCredential cannot reach); like any
 * token, it is never printed.
 */
const USAGE = `Usage: npm run smoke -- --base-url <url> [--scope <scope>] [--endpoint <endpoint id>] [--timeout <seconds>]

  --base-url <url>     the deployed service, e.g. https://<app>.azurewebsites.net (azd env get-value SERVICE_API_URI)
  --scope <scope>      what the token is asked for; default: $AUTH_APP_ID_URI/.default, else
                       api://$SERVICE_API_CLIENT_ID/.default (or $AUTH_CLIENT_ID), else, for a loopback
                       base URL, the local stack's ${LOCAL_APP_ID_URI}/.default
  --endpoint <id>      an existing test endpoint, /subscriptions/…/digitalTwinsInstances/<name>/endpoints/<name>:
                       also posts one event to its instance (which delivers it to that instance's endpoints)
  --timeout <seconds>  the deadline of each step, token included (default 30)
  --help               this text

The token comes from DefaultAzureCredential (az login, azd auth login, a managed identity, a pipeline's
service principal), or from SMOKE_BEARER_TOKEN when that is set. Its principal needs Contributor (or
Owner) at /authenticationProfiles, and with --endpoint the right to send events to the instance.
Exit code 0 when every step passed, 1 otherwise.`;

const DEFAULT_TIMEOUT_SECONDS = 30;
const PROFILE_PREFIX = "smoke";

export interface SmokeOptions {
  baseUrl: URL;
  scope: string;
  endpointId?: string;
  timeoutMs: number;
}

class UsageError extends Error {}

/** The scope when --scope is not given: the deployment's app registration from the environment. */
export { defaultScope };

/** The options of the command line; undefined for --help. */
export function parseSmokeArgs(args: string[], env: NodeJS.ProcessEnv): SmokeOptions | undefined {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        "base-url": { type: "string" },
        scope: { type: "string" },
        endpoint: { type: "string" },
        timeout: { type: "string" },
        help: { type: "boolean" },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help === true) return undefined;
  const raw = values["base-url"];
  if (typeof raw !== "string" || raw.trim() === "") throw new UsageError("--base-url is required.");
  let baseUrl: URL;
  try {
    baseUrl = new URL(raw.trim());
  } catch {
    throw new UsageError(`--base-url is not a URL: ${raw}`);
  }
  if (baseUrl.protocol !== "https:" && baseUrl.protocol !== "http:") {
    throw new UsageError(`--base-url must be an https URL (or http on loopback): ${raw}`);
  }
  const scope = typeof values.scope === "string" ? values.scope.trim() : defaultScope(env, baseUrl);
  if (scope === undefined || scope === "") {
    throw new UsageError(
      "--scope is needed: api://<the API's client id>/.default (azd env get-value SERVICE_API_CLIENT_ID), " +
        "or set AUTH_APP_ID_URI, SERVICE_API_CLIENT_ID or AUTH_CLIENT_ID.",
    );
  }
  const endpointId = typeof values.endpoint === "string" ? values.endpoint.trim() : undefined;
  if (endpointId !== undefined && parseEndpointId(endpointId) === undefined) {
    throw new UsageError(
      `--endpoint must be an endpoint's id, /subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.DigitalTwins/digitalTwinsInstances/<name>/endpoints/<name>: ${endpointId}`,
    );
  }
  let timeoutMs = DEFAULT_TIMEOUT_SECONDS * 1000;
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 600) {
      throw new UsageError("--timeout takes a number of seconds, more than 0 and at most 600.");
    }
    timeoutMs = Math.round(seconds * 1000);
  }
  return { baseUrl, scope, ...(endpointId !== undefined && { endpointId }), timeoutMs };
}

/** Why a step failed, on one line: the service's status, code and message, or the network's. */
export function describeError(error: unknown, timeoutMs: number): string {
  if (error instanceof ServiceError) {
    const requestId = error.requestId ? ` (x-ms-request-id ${error.requestId})` : "";
    return `${error.status} ${error.message}${requestId}`;
  }
  if (error instanceof Error) {
    if (error.name === "AbortError" || error.name === "TimeoutError") {
      return `no answer within ${timeoutMs / 1000} s`;
    }
    const code = (error as { code?: unknown }).code;
    const cause = (error as { cause?: { code?: unknown } }).cause?.code;
    const named = typeof code === "string" ? code : typeof cause === "string" ? cause : undefined;
    const prefix = named !== undefined && !error.message.includes(named) ? `${named}: ` : "";
    return `${prefix}${error.message}`.replace(/\s+/g, " ").trim().slice(0, 600);
  }
  return String(error);
}

/** Rejects after `ms` whatever `work` does (not every credential honours an abort signal). */
async function withDeadline<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`no answer within ${ms / 1000} s`);
      error.name = "TimeoutError";
      controller.abort(error);
      reject(error);
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lines to stdout, with any secret this run holds written as <redacted>. */
class Report {
  private readonly secrets: string[] = [];
  failures = 0;
  passes = 0;

  redact(secret: string): void {
    if (secret.length >= 8) this.secrets.push(secret);
  }

  private write(line: string): void {
    let text = line;
    for (const secret of this.secrets) text = text.split(secret).join("<redacted>");
    process.stdout.write(`${text}\n`);
  }

  pass(step: string, detail?: string): void {
    this.passes++;
    this.write(`✓ ${step}${detail ? `: ${detail}` : ""}`);
  }

  fail(step: string, why: string): void {
    this.failures++;
    this.write(`✗ ${step}: ${why}`);
  }

  skip(step: string, why: string): void {
    this.write(`- ${step}: skipped (${why})`);
  }

  note(line: string): void {
    this.write(line);
  }
}

/** Runs `work` within the deadline; reports ✓ with what it returns, or ✗ with why. True when it passed. */
async function step(
  report: Report,
  name: string,
  timeoutMs: number,
  work: (signal: AbortSignal) => Promise<string | undefined>,
): Promise<boolean> {
  try {
    const detail = await withDeadline(timeoutMs, work);
    report.pass(name, detail);
    return true;
  } catch (error) {
    report.fail(name, describeError(error, timeoutMs));
    return false;
  }
}

/** The token for the run: SMOKE_BEARER_TOKEN when set, else DefaultAzureCredential's for `scope`. */
async function acquireToken(
  scope: string,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
): Promise<{ token: AccessToken; source: string }> {
  const injected = env.SMOKE_BEARER_TOKEN?.trim();
  if (injected) {
    const value = injected.replace(/^Bearer\s+/i, "");
    return {
      token: { token: value, expiresOnTimestamp: Date.now() + 60 * 60 * 1000, tokenType: "Bearer" },
      source: "SMOKE_BEARER_TOKEN",
    };
  }
  const token = await new DefaultAzureCredential()
    .getToken(scope, { abortSignal: signal })
    .catch((error: unknown) => {
      const name = error instanceof Error ? error.name : "";
      if (name !== "AggregateAuthenticationError" && name !== "CredentialUnavailableError") throw error;
      const why = (error as Error).message.replace(/\s+/g, " ").slice(0, 300);
      throw new Error(
        `DefaultAzureCredential found no credential: sign in with az login or azd auth login (or run with a managed identity). ${why}`,
      );
    });
  if (!token) throw new Error(`DefaultAzureCredential returned no token for ${scope}`);
  return { token, source: "DefaultAzureCredential" };
}

export async function runSmoke(options: SmokeOptions, env: NodeJS.ProcessEnv): Promise<number> {
  const report = new Report();
  const { timeoutMs } = options;
  const base = options.baseUrl.href.replace(/\/+$/, "");
  report.note(`Smoke check of ${base}`);

  let token: AccessToken | undefined;
  const credential: TokenCredential = {
    async getToken() {
      if (!token) throw new Error("no token yet");
      return token;
    },
  };
  let client: TwinServiceClient;
  try {
    client = new TwinServiceClient({
      endpoint: base,
      credential,
      credentialScopes: options.scope,
      // Each try has the step's deadline; the step's signal bounds the retries too.
      retry: { maxRetries: 2, defaultDelayMs: 500, maxDelayMs: 5000, tryTimeoutMs: timeoutMs },
      userAgentOptions: { userAgentPrefix: "twin-resource-service-smoke" },
    });
  } catch (error) {
    report.fail("base URL", describeError(error, timeoutMs));
    return 1;
  }

  // A 503 lets the rest run (they show what does not work); no answer at all ends the check.
  let answered = false;
  await step(report, "GET /health", timeoutMs, async (signal) => {
    const health = await client.health({ signal });
    answered = true;
    const checks = Object.entries(health.checks)
      .map(([name, state]) => `${name} ${state}`)
      .join(", ");
    if (health.status !== "ok") {
      const reasons = Object.entries(health.reasons ?? {})
        .map(([name, reason]) => `${name}: ${reason}`)
        .join("; ");
      throw new Error(`503 unavailable (${checks})${reasons ? `: ${reasons}` : ""}`);
    }
    return `ok (${checks})`;
  });
  if (!answered) {
    return finish(report, ["token", "authenticated read", "profile"], "the service did not answer");
  }

  const gotToken = await step(report, `token for ${options.scope}`, timeoutMs, async (signal) => {
    const acquired = await acquireToken(options.scope, env, signal);
    token = acquired.token;
    report.redact(acquired.token.token);
    return `from ${acquired.source}`;
  });
  if (!gotToken) return finish(report, ["authenticated read", "profile"], "no token");

  const accepted = await step(
    report,
    "token accepted (GET /authenticationProfiles)",
    timeoutMs,
    async (signal) => {
      const page = await client.profiles.listPage({ top: 1, signal });
      return `${page.value.length === 0 ? "no profiles" : "profiles listed"}`;
    },
  );
  if (!accepted) return finish(report, ["profile"], "the authenticated read failed");

  await profileSteps(report, client, timeoutMs);
  if (options.endpointId) await eventSteps(report, client, options.endpointId, timeoutMs);
  return finish(report, [], "");
}

/** Create, read back, delete (in a finally), then a 404. */
async function profileSteps(report: Report, client: TwinServiceClient, timeoutMs: number): Promise<void> {
  const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
  const name = `${PROFILE_PREFIX}-${stamp}-${randomSuffix()}`;
  const content = JSON.stringify({ smokeCheck: true, createdAt: new Date().toISOString() });
  const path = `/authenticationProfiles/${name}`;
  try {
    const created = await step(report, `PUT ${path}`, timeoutMs, async (signal) => {
      const result = await client.profiles.create(
        name,
        { authenticationProfileContent: content },
        { signal },
      );
      return result.created ? "created (201)" : "replaced (200)";
    });
    if (!created) {
      report.skip(`GET ${path}`, "not created");
      return;
    }
    await step(report, `GET ${path}`, timeoutMs, async (signal) => {
      const read = await client.profiles.get(name, { signal });
      if (read.authenticationProfileContent !== content) {
        throw new Error("read back with different content than was written");
      }
      return "read back as written";
    });
  } finally {
    // Also after a create that failed or timed out: it may have landed all the same.
    const deleted = await step(report, `DELETE ${path}`, timeoutMs, async (signal) => {
      const existed = await client.profiles.delete(name, { signal });
      return existed ? "deleted" : "nothing to delete (204)";
    });
    if (deleted) {
      await step(report, `GET ${path} after the delete`, timeoutMs, async (signal) => {
        try {
          await client.profiles.get(name, { signal });
        } catch (error) {
          if (error instanceof ServiceError && error.status === 404) return "404, gone";
          throw error;
        }
        throw new Error("the profile is still there after its delete");
      });
    } else {
      report.note(
        `  cleanup failed: profile ${name} may be left behind; delete it with DELETE ${path}?api-version=… (see docs/operations.md)`,
      );
    }
  }
}

/** Reads the endpoint, then posts one event to its instance. */
async function eventSteps(
  report: Report,
  client: TwinServiceClient,
  endpointId: string,
  timeoutMs: number,
): Promise<void> {
  const parsed = parseEndpointId(endpointId);
  if (!parsed) throw new Error(`not an endpoint id: ${endpointId}`);
  const found = await step(report, `GET ${endpointId}`, timeoutMs, async (signal) => {
    const endpoint = await client.endpoints.get(parsed.twinsInstanceId, parsed.name, { signal });
    return `found (${endpoint.authenticationType})`;
  });
  if (!found) {
    report.skip(`POST ${parsed.twinsInstanceId}/events`, "the endpoint was not found");
    return;
  }
  await step(report, `POST ${parsed.twinsInstanceId}/events`, timeoutMs, async (signal) => {
    const id = randomUUID();
    const result = await client.events.ingest(
      parsed.twinsInstanceId,
      {
        id,
        source: "twin-resource-service/smoke",
        specversion: "1.0",
        type: "TwinResourceService.SmokeCheck",
        subject: parsed.name,
        time: new Date().toISOString(),
        data: { smokeCheck: true },
      },
      { signal },
    );
    if (result.accepted !== 1) throw new Error(`202, but accepted ${result.accepted} events of 1`);
    return `accepted (202, event id ${id})`;
  });
}

function finish(report: Report, skipped: string[], why: string): number {
  for (const name of skipped) report.skip(name, why);
  if (report.failures === 0) {
    report.note(`Smoke check passed: ${report.passes} steps.`);
    return 0;
  }
  report.note(`Smoke check FAILED: ${report.failures} of ${report.passes + report.failures} steps failed.`);
  return 1;
}

async function main(): Promise<number> {
  let options: SmokeOptions | undefined;
  try {
    options = parseSmokeArgs(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`✗ ${error.message}\n\n${USAGE}\n`);
    return 1;
  }
  if (options === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  return runSmoke(options, process.env);
}

if (require.main === module) {
  // Exits at once: kept-alive connections and a credential's timers would hold the process.
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stdout.write(`✗ smoke check: ${describeError(error, 0)}\n`);
      process.exit(1);
    },
  );
}
