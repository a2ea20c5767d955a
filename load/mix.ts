import { assessmentId, projectId } from "../src/assessments/assessment-path";
import { ASSESSMENT_API_VERSIONS } from "../src/common/api-versions";
import type { DeliveryWatch } from "./delivery-watch";
import { endpointBody, type LoadFixtures } from "./fixtures";
import type { Random } from "./random";

/** One request of the mix, and the statuses that are correct answers to it under this load. */
export interface LoadRequest {
  method: string;
  path: string;
  key: "function" | "master" | "none";
  body?: string;
  contentType?: string;
  /**
   * Correct answers. A 404 for a profile another client just deleted is correct; a 400 or a 409
   * here means the service (or this mix) is wrong, and is reported as an unexpected 4xx.
   */
  expected: readonly number[];
  /** Runs with the status once the answer is in (ingest records what was accepted). */
  answered?: (status: number) => void;
}

/** What one client keeps between its requests. */
export interface ClientState {
  id: number;
  random: Random;
  /** Makes event ids unique across clients and requests. */
  eventSequence: number;
}

export interface MixContext {
  fixtures: LoadFixtures;
  watch: DeliveryWatch;
  maxEventsPerPost: number;
  /** Counts events accepted for instances nobody watches (the churned ones). */
  unwatchedAccepted: (count: number) => void;
}

export interface Operation {
  route: string;
  weight: number;
  build(client: ClientState, context: MixContext): LoadRequest;
}

const JSON_TYPE = "application/json";

/** Profiles and endpoints take one api-version; sending it on some requests covers both forms. */
function withApiVersion(path: string, client: ClientState): string {
  return client.random.next() < 0.5 ? `${path}?api-version=2026-11-01` : path;
}

function profilePath(client: ClientState, { fixtures }: MixContext): string {
  return `/authenticationProfiles/${client.random.pick(fixtures.profileNames)}`;
}

function profileBody(client: ClientState): string {
  const content = { Client_ID: `client-${client.id}`, App_ID: `app-${client.random.int(0, 1_000_000)}` };
  return JSON.stringify({ authenticationProfileContent: JSON.stringify(content) });
}

function churnEndpoint(client: ClientState, { fixtures }: MixContext): { path: string; topic: string } {
  const churn = client.random.pick(fixtures.churn);
  const name = client.random.pick(churn.endpointNames);
  const instanceName = churn.instance.split("/").pop() ?? "";
  return { path: `${churn.instance}/endpoints/${name}`, topic: `${instanceName}-${name}` };
}

function assessmentQuery(client: ClientState): string {
  return `api-version=${client.random.pick(ASSESSMENT_API_VERSIONS)}`;
}

function ingest(client: ClientState, context: MixContext): LoadRequest {
  const count = client.random.int(1, context.maxEventsPerPost);
  const ids = Array.from({ length: count }, () => `load-${client.id}-${client.eventSequence++}`);
  const events = ids.map((id) => ({
    id,
    source: `/load/client-${client.id}`,
    specversion: "1.0",
    type: "Microsoft.DigitalTwins.Twin.Update",
    time: new Date().toISOString(),
    data: { twinId: `twin-${client.random.int(0, 99)}`, temperature: client.random.int(15, 30) },
  }));
  // Mostly to watched instances, whose deliveries are checked; some to churned ones, whose
  // endpoints come and go while their events are delivered.
  const watched = client.random.next() < 0.8;
  const instance = watched
    ? client.random.pick(context.fixtures.watched).instance
    : client.random.pick(context.fixtures.churn).instance;
  return {
    method: "POST",
    path: `${instance}/events`,
    key: "function",
    body: JSON.stringify(events),
    contentType: "application/cloudevents-batch+json",
    expected: [202],
    answered: (status) => {
      if (status !== 202) return;
      if (watched) context.watch.accept(instance, ids);
      else context.unwatchedAccepted(ids.length);
    },
  };
}

/**
 * The weighted mix: every route of the route table, in roughly the proportions a busy
 * deployment might see (reads over writes, ingest steady), with names drawn from small pools
 * so that clients race each other on the same resources.
 */
export const OPERATIONS: readonly Operation[] = [
  {
    route: "profile GET",
    weight: 12,
    build: (c, x) => ({
      method: "GET",
      path: withApiVersion(profilePath(c, x), c),
      key: "function",
      expected: [200, 404],
    }),
  },
  {
    route: "profile PUT",
    weight: 7,
    build: (c, x) => ({
      method: "PUT",
      path: withApiVersion(profilePath(c, x), c),
      key: "function",
      body: profileBody(c),
      contentType: JSON_TYPE,
      expected: [200, 201],
    }),
  },
  {
    route: "profile PATCH",
    weight: 4,
    build: (c, x) => ({
      method: "PATCH",
      path: profilePath(c, x),
      key: "function",
      body: profileBody(c),
      contentType: JSON_TYPE,
      expected: [200, 404],
    }),
  },
  {
    route: "profile DELETE",
    weight: 3,
    build: (c, x) => ({ method: "DELETE", path: profilePath(c, x), key: "function", expected: [200, 204] }),
  },
  {
    route: "profile list",
    weight: 4,
    build: (c) => ({
      method: "GET",
      path: `/authenticationProfiles?$top=${c.random.int(10, 100)}`,
      key: "function",
      expected: [200],
    }),
  },
  {
    route: "endpoint GET",
    weight: 7,
    build: (c, x) => ({
      method: "GET",
      path: churnEndpoint(c, x).path,
      key: "function",
      expected: [200, 404],
    }),
  },
  {
    route: "endpoint PUT",
    weight: 5,
    build: (c, x) => {
      const { path, topic } = churnEndpoint(c, x);
      return {
        method: "PUT",
        path: withApiVersion(path, c),
        key: "function",
        body: endpointBody(x.fixtures, topic, c.random.next() < 0.3),
        contentType: JSON_TYPE,
        expected: [200, 201],
      };
    },
  },
  {
    route: "endpoint PATCH",
    weight: 2,
    build: (c, x) => ({
      method: "PATCH",
      path: churnEndpoint(c, x).path,
      key: "function",
      // Sets the dead-letter secret or removes it (null), the two ways PATCH changes an endpoint.
      body: JSON.stringify({
        deadLetterStorageSecret: c.random.next() < 0.5 ? x.fixtures.deadLetterUrl : null,
      }),
      contentType: JSON_TYPE,
      expected: [200, 404],
    }),
  },
  {
    route: "endpoint DELETE",
    weight: 3,
    build: (c, x) => ({
      method: "DELETE",
      path: churnEndpoint(c, x).path,
      key: "function",
      expected: [200, 204],
    }),
  },
  {
    route: "endpoint list",
    weight: 4,
    build: (c, x) => ({
      method: "GET",
      path: `${c.random.pick(x.fixtures.churn).instance}/endpoints`,
      key: "function",
      expected: [200],
    }),
  },
  { route: "events POST", weight: 15, build: ingest },
  {
    route: "assessment GET",
    weight: 14,
    build: (c, x) => ({
      method: "GET",
      path: `${assessmentId(c.random.pick(x.fixtures.assessments))}?${assessmentQuery(c)}`,
      key: "function",
      expected: [200],
    }),
  },
  {
    route: "assessment list",
    weight: 6,
    build: (c, x) => ({
      method: "GET",
      path: `${projectId(c.random.pick(x.fixtures.assessments))}/clusterAssessments?${assessmentQuery(c)}`,
      key: "function",
      expected: [200],
    }),
  },
  {
    route: "assessment PUT (master)",
    weight: 1,
    build: (c, x) => ({
      method: "PUT",
      path: assessmentId(c.random.pick(x.fixtures.scratchAssessments)),
      key: "master",
      body: JSON.stringify(x.fixtures.assessmentBody),
      contentType: JSON_TYPE,
      expected: [200, 201],
    }),
  },
  {
    route: "assessment DELETE (master)",
    weight: 1,
    build: (c, x) => ({
      method: "DELETE",
      path: assessmentId(c.random.pick(x.fixtures.scratchAssessments)),
      key: "master",
      expected: [200, 204],
    }),
  },
  {
    route: "health GET",
    weight: 9,
    build: () => ({ method: "GET", path: "/health", key: "none", expected: [200] }),
  },
  {
    route: "openapi GET",
    weight: 1,
    build: () => ({ method: "GET", path: "/openapi.json", key: "none", expected: [200] }),
  },
];

/** Draws operations in proportion to their weights. */
export function picker(operations: readonly Operation[]): (random: Random) => Operation {
  const total = operations.reduce((sum, operation) => sum + operation.weight, 0);
  return (random) => {
    let point = random.next() * total;
    for (const operation of operations) {
      point -= operation.weight;
      if (point < 0) return operation;
    }
    return operations[operations.length - 1] as Operation;
  };
}
