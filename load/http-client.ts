import * as http from "node:http";

export interface HttpResult {
  status: number;
  /** Milliseconds from sending the request until the whole response was read. */
  ms: number;
  /** The response body, kept only when asked for (reading it as text costs the client time). */
  body?: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  body?: string;
  keepBody?: (status: number) => boolean;
}

/**
 * A small keep-alive HTTP/1.1 client for the local host, used by the benchmarks and the load
 * run. node:http instead of fetch: these clients share the host's process and cores, and fetch
 * (undici) spends about twice the CPU per request, which would be charged to the service.
 * Only loopback is accepted: nothing these tools send may leave the machine.
 */
export class LoopbackClient {
  private readonly agent: http.Agent;
  private readonly port: number;

  constructor(
    baseUrl: string,
    maxSockets: number,
    private readonly timeoutMs = 30_000,
  ) {
    const url = new URL(baseUrl);
    if (url.protocol !== "http:" || url.hostname !== "127.0.0.1") {
      throw new Error(`only http://127.0.0.1 is allowed, not ${url.origin}`);
    }
    this.port = Number(url.port);
    // With a `timeout` of its own, Node's agent honours the server's `Keep-Alive: timeout=5` hint and
    // drops an idle socket before the server does; without it, a request may go out on a socket the
    // server is closing at that moment, and fail with ECONNRESET (seen in the soak part).
    this.agent = new http.Agent({ keepAlive: true, maxSockets, timeout: timeoutMs });
  }

  /** Resolves with the status of any answer; rejects only on a transport error or a timeout. */
  request(method: string, path: string, options: RequestOptions = {}): Promise<HttpResult> {
    const started = performance.now();
    const headers: Record<string, string | number> = { ...options.headers };
    if (options.body !== undefined) headers["content-length"] = Buffer.byteLength(options.body);
    return new Promise((resolve, reject) => {
      const request = http.request(
        { host: "127.0.0.1", port: this.port, method, path, headers, agent: this.agent },
        (response) => {
          const status = response.statusCode ?? 0;
          const chunks: Buffer[] = [];
          const keep = options.keepBody?.(status) ?? false;
          response.on("data", (chunk: Buffer) => {
            if (keep) chunks.push(chunk);
          });
          response.on("error", reject);
          response.on("end", () =>
            resolve({
              status,
              ms: performance.now() - started,
              ...(keep && { body: Buffer.concat(chunks).toString("utf8") }),
            }),
          );
        },
      );
      request.setTimeout(this.timeoutMs, () =>
        request.destroy(new Error(`no answer within ${this.timeoutMs} ms`)),
      );
      request.on("error", reject);
      request.end(options.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
