import type { LoopbackClient } from "./http-client";
import { LOAD_FUNCTION_KEY, LOAD_MASTER_KEY } from "./keys";
import { type ClientState, type LoadRequest, type MixContext, OPERATIONS, picker } from "./mix";
import { Random } from "./random";
import type { LoadStats } from "./stats";

export interface ClientRun {
  clients: number;
  /** performance.now() after which no client starts another request. */
  deadline: number;
  /** A second bound, by count, whatever the clock says. */
  maxRequests: number;
  seed: number;
  http: LoopbackClient;
  context: MixContext;
  stats: LoadStats;
}

function headers(request: LoadRequest): Record<string, string> {
  const result: Record<string, string> = {};
  if (request.key === "function") result["x-functions-key"] = LOAD_FUNCTION_KEY;
  if (request.key === "master") result["x-functions-key"] = LOAD_MASTER_KEY;
  if (request.contentType !== undefined) result["content-type"] = request.contentType;
  return result;
}

/**
 * Runs `clients` closed-loop clients: each sends one request of the mix, waits for the whole
 * answer, records it, and sends the next, until the deadline or the request cap. Closed loop on
 * purpose: the service sets the pace, so a slow service shows as latency, not as a pile-up.
 */
export async function runClients(run: ClientRun): Promise<void> {
  const pick = picker(OPERATIONS);
  await Promise.all(
    Array.from({ length: run.clients }, async (_, id) => {
      const client: ClientState = { id, random: new Random(run.seed * 1000 + id), eventSequence: 0 };
      while (performance.now() < run.deadline && run.stats.requests < run.maxRequests) {
        const operation = pick(client.random);
        const request = operation.build(client, run.context);
        const started = performance.now();
        try {
          const result = await run.http.request(request.method, request.path, {
            headers: headers(request),
            ...(request.body !== undefined && { body: request.body }),
            keepBody: (status) => !request.expected.includes(status),
          });
          request.answered?.(result.status);
          run.stats.record(operation.route, {
            kind: "answer",
            status: result.status,
            expected: request.expected.includes(result.status),
            ms: result.ms,
            ...(result.body !== undefined && { body: result.body }),
          });
        } catch (error) {
          run.stats.record(operation.route, {
            kind: "transport",
            message: (error as Error).message,
            ms: performance.now() - started,
          });
        }
      }
    }),
  );
}
