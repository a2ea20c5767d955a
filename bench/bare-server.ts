import { randomUUID } from "node:crypto";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import type { Container } from "@azure/cosmos";
import { isAuthorized, type LocalKeys } from "../dev/key-check";
import { nameKey } from "../src/common/name-key";
import { formatEtag } from "../src/common/preconditions";
import { stampSystemData } from "../src/common/system-data";
import { loadConfig } from "../src/config";
import { correlationIdFrom } from "../src/http/with-conventions";
import type { ProfileDocument } from "../src/profiles/profile-service";
import { CONTAINERS } from "../src/store/containers";
import { createCosmosClient } from "../src/store/cosmos-client";

/**
 * The thinnest server that does what the service does for one AuthenticationProfile, the baseline
 * of the HTTP benchmark (http-bench.ts), run as a child process of its own like the host under
 * test: node:http, the function key checked (constant time, dev/key-check.ts), then exactly the
 * Cosmos work of the service on the same document, through a CosmosClient made as the service
 * makes its own (src/store/cosmos-client.ts): GET /authenticationProfiles/{name} is one point read,
 * answered as the resource's JSON with its ETag; PUT is a read and a replace, answered the same
 * way. The replace is conditional on the ETag read (If-Match), where the service's, for a PUT
 * without If-Match as the benchmark sends, is not (the last write wins): one header more here,
 * which only adds to this server's work, so it is kept. The document written and the resource
 * answered are the service's in shape: systemData stamped for the key's caller on a replace, and
 * answered on both (the service answers it, so leaving it out would make this server's answers
 * and writes smaller than the service's). Its head is the service's, byte for byte but for the ids
 * and the date: the contract's request id (new) and correlation id (echoed when valid, else new)
 * on every answer, the same names in the same spelling and order, written with one writeHead. No
 * validation, no conventions, no logging: only the work no server of this API can skip. Settings
 * come from the environment (as the host's do); it listens on a free port and reports it over IPC:
 * { ready: true, port }.
 */

const PREFIX = "/authenticationProfiles/";
const PARTITION = "account";
const KEY_ACTOR = { id: "default", type: "Key" } as const;

type Answer = { status: number; body?: unknown; etag?: string };

function resourceOf(document: ProfileDocument & { _etag: string }): Answer {
  return {
    status: 200,
    body: {
      id: document.authenticationProfileName,
      authenticationProfileName: document.authenticationProfileName,
      authenticationProfileContent: document.authenticationProfileContent,
      systemData: document.systemData,
    },
    etag: document._etag,
  };
}

async function readBody(request: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

type StoredProfile = ProfileDocument & { _etag: string };

async function read(container: Container, id: string): Promise<StoredProfile | undefined> {
  try {
    return (await container.item(id, PARTITION).read<StoredProfile>()).resource;
  } catch (error) {
    if ((error as { code?: unknown }).code === 404) return undefined;
    throw error;
  }
}

async function get(container: Container, id: string): Promise<Answer> {
  const document = await read(container, id);
  return document ? resourceOf(document) : { status: 404 };
}

/** A read, then a replace of the version read (If-Match on its ETag); 412 when it lost a race. */
async function replace(container: Container, id: string, body: string): Promise<Answer> {
  const put = JSON.parse(body) as { authenticationProfileContent: string };
  const existing = await read(container, id);
  if (!existing) return { status: 404 };
  const now = new Date().toISOString();
  const document: ProfileDocument = {
    id: existing.id,
    scope: existing.scope,
    authenticationProfileName: existing.authenticationProfileName,
    authenticationProfileContent: put.authenticationProfileContent,
    createdAt: existing.createdAt,
    updatedAt: now,
    // The function key's caller, as the service records it (src/auth/principal.ts actorOf).
    systemData: stampSystemData(existing.systemData, KEY_ACTOR, now),
  };
  try {
    const { resource } = await container.item(id, PARTITION).replace<ProfileDocument>(document, {
      accessCondition: { type: "IfMatch", condition: existing._etag },
    });
    return resourceOf(resource as StoredProfile);
  } catch (error) {
    if ((error as { code?: unknown }).code === 412) return { status: 412 };
    throw error;
  }
}

/** The answer with the head the service sends (names, spelling and order as the service's). */
function write(request: http.IncomingMessage, response: http.ServerResponse, answer: Answer): void {
  const headers: Record<string, string> = {};
  const body = answer.body === undefined ? undefined : JSON.stringify(answer.body);
  if (body !== undefined) headers["content-type"] = "application/json; charset=utf-8";
  if (answer.etag !== undefined) headers.etag = formatEtag(answer.etag);
  headers["x-ms-correlation-request-id"] = correlationIdFrom(
    request.headers["x-ms-correlation-request-id"] as string | undefined,
  );
  headers["x-ms-request-id"] = randomUUID();
  if (body !== undefined) headers["Content-Length"] = String(Buffer.byteLength(body));
  response.writeHead(answer.status, headers);
  response.end(body);
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const keys: LocalKeys = {
    functionKey: process.env.FUNCTION_KEY ?? "",
    masterKey: process.env.MASTER_KEY ?? "",
  };
  if (!keys.functionKey || !keys.masterKey) throw new Error("FUNCTION_KEY and MASTER_KEY must be set");
  const cosmos = createCosmosClient(config);
  const container = cosmos.database(config.COSMOS_DATABASE).container(CONTAINERS.profiles.id);

  async function handle(request: http.IncomingMessage): Promise<Answer> {
    const key = request.headers["x-functions-key"];
    if (!isAuthorized("function", typeof key === "string" ? key : null, keys)) return { status: 401 };
    const url = request.url ?? "/";
    if (!url.startsWith(PREFIX)) return { status: 404 };
    const id = nameKey(decodeURIComponent(url.slice(PREFIX.length)));
    if (request.method === "GET") return get(container, id);
    if (request.method === "PUT") return replace(container, id, await readBody(request));
    return { status: 405 };
  }

  const server = http.createServer((request, response) => {
    handle(request).then(
      (answer) => write(request, response, answer),
      (error: unknown) => {
        console.error(`bare server: ${(error as Error).message}`);
        write(request, response, { status: 500 });
      },
    );
  });
  server.keepAliveTimeout = 5000;
  const stop = () => {
    server.close();
    server.closeAllConnections();
    cosmos.dispose();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  process.on("disconnect", stop);
  process.on("message", (message: { cpu?: boolean } | null) => {
    if (message?.cpu === true) process.send?.({ cpu: process.cpuUsage() });
  });
  server.listen(0, "127.0.0.1", () => {
    process.send?.({ ready: true, port: (server.address() as AddressInfo).port });
  });
}

main().catch((error: unknown) => {
  console.error(`bare server: ${(error as Error).message}`);
  process.exit(1);
});
