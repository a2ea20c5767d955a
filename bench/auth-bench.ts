import { randomUUID } from "node:crypto";
import {
  LOCAL_APP_ID_URI,
  LOCAL_CLIENT_ID,
  LOCAL_TENANT_ID,
  type OpenIdIssuer,
  principalObjectId,
  startOpenIdIssuer,
} from "../dev/stand-ins/openid-issuer";
import { combined, type ServerFigure, whole } from "./http-bench";
import { type HttpDriver, startHttpDriver } from "./http-driver-process";
import { type ServerProcess, startHostProcess } from "./http-servers";
import { BENCH_FUNCTION_KEY, type BenchStack } from "./local-stack";
import { type Rounds, runRounds } from "./rounds";

export interface AuthBenchSizes {
  /** GETs per round for each host, sent in a few slices. */
  requests: number;
  /** Requests in flight. */
  concurrency: number;
  rounds: number;
}

/** What a GET under AUTH_MODE=entra must reach, as a share of the same GET under keys (issue 19). */
export const AUTH_GOAL = 0.9;

/** The bench process's CPU while it drove one host: the client's worker thread, mostly. */
export interface DriverFigure {
  cpuMicrosPerRequest: number;
  /** Its CPU time over the wall time: 1 would be a whole core, and the driver the bottleneck. */
  coreShare: number;
}

export interface AuthRound {
  keys: ServerFigure;
  entra: ServerFigure;
  /** entra req/s over keys req/s. */
  ratio: number;
  driver: { keys: DriverFigure; entra: DriverFigure };
}

export interface AuthBenchResult {
  concurrency: number;
  goal: number;
  rounds: Rounds<AuthRound>;
  /** Requests the issuer got while the rounds ran: tokens are checked with keys already held. */
  issuerRequests: number;
}

type Mode = "keys" | "entra";
interface Host {
  server: ServerProcess;
  headers: Record<string, string>;
}

const PROFILES = 50;
const PREFIX = "auth-bench-";
const SLICES = 4;
const CONTENT = JSON.stringify({ AllowDBUserOverride: "1", Client_ID: "ExampleClientID", App_ID: "bench" });

interface Measured extends ServerFigure {
  driver: DriverFigure;
}

/**
 * One slice: GETs of the benchmark's profiles through one host, sent by the long-lived driver
 * process (the HTTP part's), which reads the host's CPU time and its own around the requests.
 */
async function send(driver: HttpDriver, host: Host, count: number, concurrency: number): Promise<Measured> {
  const result = await driver.run({
    baseUrl: host.server.baseUrl,
    serverPid: host.server.pid,
    method: "GET",
    pathPrefix: `/authenticationProfiles/${PREFIX}`,
    modulo: PROFILES,
    count,
    concurrency,
    headers: host.headers,
    expected: 200,
  });
  const { figure } = result;
  return {
    ...figure,
    cpuMicrosPerRequest: result.serverMicros / count,
    driver: {
      cpuMicrosPerRequest: result.driverMicros / count,
      coreShare: result.driverMicros / (figure.seconds * 1e6),
    },
  };
}

function driverOf(slices: Measured[]): DriverFigure {
  const count = slices.reduce((sum, slice) => sum + slice.count, 0);
  const micros = slices.reduce((sum, slice) => sum + slice.driver.cpuMicrosPerRequest * slice.count, 0);
  const wall = slices.reduce((sum, slice) => sum + slice.seconds, 0);
  return { cpuMicrosPerRequest: micros / count, coreShare: micros / (wall * 1e6) };
}

function measure(
  driver: HttpDriver,
  hosts: Record<Mode, Host>,
  sizes: AuthBenchSizes,
): Promise<Rounds<AuthRound>> {
  const perSlice = Math.max(1, Math.ceil(sizes.requests / SLICES));
  return runRounds(sizes.rounds, async (round) => {
    const slices: Record<Mode, Measured[]> = { keys: [], entra: [] };
    for (let slice = 0; slice < SLICES; slice++) {
      // ABBA, the other way round every other round: neither host always runs first.
      const order: Mode[] = (slice + round) % 2 === 1 ? ["keys", "entra"] : ["entra", "keys"];
      for (const mode of order)
        slices[mode].push(await send(driver, hosts[mode], perSlice, sizes.concurrency));
    }
    const keys = whole(combined(slices.keys), "keys host");
    const entra = whole(combined(slices.entra), "entra host");
    return {
      keys,
      entra,
      ratio: entra.perSecond / keys.perSecond,
      driver: { keys: driverOf(slices.keys), entra: driverOf(slices.entra) },
    };
  });
}

async function expectStatus(response: Promise<Response>, wanted: number[], what: string): Promise<void> {
  const answer = await response;
  if (!wanted.includes(answer.status)) throw new Error(`${what}: ${answer.status} ${await answer.text()}`);
}

/**
 * The profiles the GETs read, made through the keys host, and a Reader assignment on
 * /authenticationProfiles for the entra caller, made by an admin (AUTH_ADMIN_PRINCIPALS) through
 * the entra host: the caller is judged by a stored assignment, as a real reader would be.
 */
async function prepare(hosts: Record<Mode, Host>, issuer: OpenIdIssuer, admin: string): Promise<void> {
  for (let index = 0; index < PROFILES; index++) {
    const body = JSON.stringify({ authenticationProfileContent: CONTENT });
    await expectStatus(
      fetch(`${hosts.keys.server.baseUrl}/authenticationProfiles/${PREFIX}${index}`, {
        method: "PUT",
        headers: { ...hosts.keys.headers, "content-type": "application/json" },
        body,
      }),
      [200, 201],
      "creating a profile",
    );
  }
  const assignment = `/authenticationProfiles/providers/Microsoft.Authorization/roleAssignments/${randomUUID()}`;
  await expectStatus(
    fetch(`${hosts.entra.server.baseUrl}${assignment}`, {
      method: "PUT",
      headers: {
        authorization: `Bearer ${await issuer.mint({ name: admin })}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ principalId: principalObjectId(READER), roleDefinitionName: "Reader" }),
    }),
    [201],
    "assigning Reader",
  );
}

const READER = "bench-reader";
const ADMIN = "bench-admin";

async function run(stack: BenchStack, issuer: OpenIdIssuer, sizes: AuthBenchSizes): Promise<AuthBenchResult> {
  const keys = await startHostProcess({ ...stack.settings, AUTH_MODE: "keys" });
  try {
    const entra = await startHostProcess({
      ...stack.settings,
      AUTH_MODE: "entra",
      AUTH_AUTHORITY: issuer.authority,
      AUTH_AUDIENCE: `${LOCAL_CLIENT_ID},${LOCAL_APP_ID_URI}`,
      AUTH_ALLOWED_TENANTS: LOCAL_TENANT_ID,
      AUTH_ADMIN_PRINCIPALS: principalObjectId(ADMIN),
    });
    try {
      // One token for the whole run, as a client keeps its token for the hour it is valid.
      const token = await issuer.mint({ name: READER, lifetimeSeconds: 8 * 3600 });
      const hosts: Record<Mode, Host> = {
        keys: { server: keys, headers: { "x-functions-key": BENCH_FUNCTION_KEY } },
        entra: { server: entra, headers: { authorization: `Bearer ${token}` } },
      };
      await prepare(hosts, issuer, ADMIN);
      const driver = await startHttpDriver();
      try {
        for (const mode of ["keys", "entra"] as const)
          whole(await send(driver, hosts[mode], 500, sizes.concurrency), mode);
        issuer.resetRequestCounts();
        const rounds = await measure(driver, hosts, sizes);
        return {
          concurrency: sizes.concurrency,
          goal: AUTH_GOAL,
          rounds,
          issuerRequests: issuer.requestCount(),
        };
      } finally {
        await driver.stop();
      }
    } finally {
      await entra.stop();
    }
  } finally {
    await keys.stop();
  }
}

/**
 * GET of a profile under AUTH_MODE=entra next to the same GET under keys: two local hosts, each a
 * child process, on the stack's Cosmos server, one checking the function key and one validating a
 * bearer token from the local issuer (in this process) and the caller's Reader assignment. Same
 * driver (the HTTP part's long-lived driver process), same documents, interleaved slices; per round each
 * host's req/s and CPU per request, and the driver's CPU to show it is not what limits them.
 */
export async function benchAuth(stack: BenchStack, sizes: AuthBenchSizes): Promise<AuthBenchResult> {
  const issuer = await startOpenIdIssuer();
  try {
    return await run(stack, issuer, sizes);
  } finally {
    await issuer.close();
  }
}
