import * as http from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { type RequestHead, readRefusedHead, readRequestHead } from "./unparsed-request";

type Serve = (incoming: http.IncomingMessage, outgoing: http.ServerResponse) => void;
/**
 * Answers a request Node's parser refused as not valid HTTP (400), in the service's error shape;
 * `header` names the header whose line failed, when one did.
 */
export type Refuse = (
  incoming: http.IncomingMessage,
  outgoing: http.ServerResponse,
  refusal: { code: string; header?: string },
) => void;
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

/** An IncomingMessage of a head read from a refused packet: no body, the connection to close. */
function incomingOf(socket: Duplex, head: RequestHead): http.IncomingMessage {
  const incoming = new http.IncomingMessage(socket as Socket);
  Object.assign(incoming, { method: head.method, url: head.target, headers: head.headers });
  Object.assign(incoming, { httpVersionMajor: 1, httpVersionMinor: 1, httpVersion: "1.1" });
  incoming.push(null);
  return incoming;
}

/**
 * Hands `serve` the requests Node does not: CONNECT (without a listener Node drops the
 * connection) and methods its parser refuses (it knows a fixed list, in upper case: `FOO` and
 * `get` would get a bare 400). The host answers them as any request, so they get a 405 with Allow
 * and the request id. Other requests the parser refuses as not HTTP (a control character in a
 * header, a malformed length) go to `refuse`, for a 400 in the error shape with the request id;
 * an oversized head (431) and a timeout (408) get Node's own bare answer.
 */
export function serveBareSocketRequests(server: http.Server, serve: Serve, refuse: Refuse): void {
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
    const bare = bareParserError(error.code);
    if (head && socket.writable) {
      serveOnSocket(serve, incomingOf(socket, head), socket);
    } else if (socket.writable && bare.startsWith("400") && error.code !== "ECONNRESET") {
      const refused = error.rawPacket ? readRefusedHead(error.rawPacket, error.bytesParsed ?? 0) : {};
      const incoming = incomingOf(socket, refused.head ?? { method: "GET", target: "/", headers: {} });
      const refusal = {
        code: error.code ?? "HPE_UNKNOWN",
        ...(refused.header && { header: refused.header }),
      };
      serveOnSocket((request, response) => refuse(request, response, refusal), incoming, socket);
    } else if (socket.writable) {
      socket.end(`HTTP/1.1 ${bare}\r\nConnection: close\r\n\r\n`);
    } else {
      socket.destroy();
    }
  });
}
