import * as http from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { readRequestHead } from "./unparsed-request";

type Serve = (incoming: http.IncomingMessage, outgoing: http.ServerResponse) => void;
type ParserError = NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number };

/** What Node answers a request its parser cannot read at all (no method, no target to go on). */
function bareParserError(code: string | undefined): string {
  if (code === "HPE_HEADER_OVERFLOW") return "431 Request Header Fields Too Large";
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return "408 Request Timeout";
  return "400 Bad Request";
}

/**
 * Answers a request Node left on a bare socket as any other, on a response bound to that socket,
 * then closes the connection: the socket is a tunnel after CONNECT, and the parser is stuck
 * after an error.
 */
function serveOnSocket(serve: Serve, incoming: http.IncomingMessage, socket: Duplex): void {
  const outgoing = new http.ServerResponse(incoming);
  outgoing.shouldKeepAlive = false;
  try {
    outgoing.assignSocket(socket as Socket);
  } catch {
    // A response of an earlier pipelined request still holds the socket.
    socket.destroy();
    return;
  }
  outgoing.on("finish", () => socket.end());
  serve(incoming, outgoing);
}

/**
 * Hands `serve` the requests Node does not: CONNECT (without a listener Node drops the
 * connection) and methods its parser refuses (it knows a fixed list, in upper case: `FOO` and
 * `get` would get a bare 400). The host answers them as any request, so they get a 405 with Allow
 * and the request id. Other parser errors get Node's own bare answer.
 */
export function serveBareSocketRequests(server: http.Server, serve: Serve): void {
  server.on("connect", (incoming: http.IncomingMessage, socket: Duplex) =>
    serveOnSocket(serve, incoming, socket),
  );
  const answered = new WeakSet<Duplex>();
  server.on("clientError", (error: ParserError, socket: Duplex) => {
    // The stuck parser reports every later packet of the connection again.
    if (answered.has(socket)) return;
    answered.add(socket);
    const head =
      error.code === "HPE_INVALID_METHOD" && error.rawPacket
        ? readRequestHead(error.rawPacket, error.bytesParsed ?? 0)
        : undefined;
    if (head && socket.writable) {
      const incoming = new http.IncomingMessage(socket as Socket);
      Object.assign(incoming, { method: head.method, url: head.target, headers: head.headers });
      Object.assign(incoming, { httpVersionMajor: 1, httpVersionMinor: 1, httpVersion: "1.1" });
      incoming.push(null);
      serveOnSocket(serve, incoming, socket);
    } else if (socket.writable) {
      socket.end(`HTTP/1.1 ${bareParserError(error.code)}\r\nConnection: close\r\n\r\n`);
    } else {
      socket.destroy();
    }
  });
}
