import { subscribe } from "node:diagnostics_channel";
import type { ClientRequest, IncomingMessage } from "node:http";

/** One request of `requests`, at the same index: its answer, and what kind of request it was. */
export interface RequestFacts {
  /** 0 when no answer came before the step ended. */
  status: number;
  /** The answer's Content-Length. */
  bytes: number;
  /** A Cosmos DB request that is not a plain read or write, from its headers. */
  cosmos?: "query" | "query plan" | "batch";
}

/**
 * The HTTP requests this process sends (Node's `http.client.request.start` channel), for counting
 * what an app costs in round trips to Cosmos DB and Storage: `METHOD host:port/path`, the query left
 * off (a SAS token is one). Beside each, what pricing it needs: the answer's status and size (the
 * document, for a Cosmos DB point read or write), and, from its headers, whether it was a Cosmos DB
 * query, query plan or batch. AMQP (Service Bus) is not HTTP and is counted by the broker.
 */
export interface SentRequests {
  requests: string[];
  responses: RequestFacts[];
}

/** Starts recording; each take() returns what was sent since the one before (or the start). */
export function recordHttpRequests(): { take(): SentRequests } {
  let sent: SentRequests = { requests: [], responses: [] };
  const factsOf = new WeakMap<ClientRequest, RequestFacts>();
  subscribe("http.client.request.start", (message) => {
    const { request } = message as { request: ClientRequest };
    sent.requests.push(`${request.method} ${request.getHeader("host")}${request.path.split("?", 1)[0]}`);
    const facts: RequestFacts = { status: 0, bytes: 0 };
    if (request.getHeader("x-ms-cosmos-is-query-plan-request")) facts.cosmos = "query plan";
    else if (request.getHeader("x-ms-documentdb-isquery")) facts.cosmos = "query";
    else if (request.getHeader("x-ms-cosmos-is-batch-request")) facts.cosmos = "batch";
    sent.responses.push(facts);
    factsOf.set(request, facts);
  });
  subscribe("http.client.response.finish", (message) => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    const facts = factsOf.get(request);
    if (!facts) return;
    facts.status = response.statusCode ?? 0;
    facts.bytes = Number(response.headers["content-length"] ?? 0);
  });
  return {
    take() {
      const taken = sent;
      sent = { requests: [], responses: [] };
      return taken;
    },
  };
}
