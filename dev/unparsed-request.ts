/** The parts of a request the host needs to answer it: method, target and headers. */
export interface RequestHead {
  method: string;
  target: string;
  headers: Record<string, string>;
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const REQUEST_LINE = new RegExp(`^(${TOKEN}) (\\S+) HTTP/1\\.[01]$`);
const HEADER_NAME = new RegExp(`^${TOKEN}$`);

/**
 * Reads the head of a request Node's HTTP parser refused (it knows a fixed list of methods, in
 * upper case: `FOO` and `get` are parse errors), from the packet it failed on, so the host can
 * still answer 405 instead of a bare 400. `errorOffset` is where in the packet parsing failed: the
 * request line is the one around it (earlier requests of a pipelined packet come before). Header
 * lines past the packet are not seen; undefined when the request line is not HTTP/1.x.
 */
export function readRequestHead(packet: Buffer, errorOffset: number): RequestHead | undefined {
  const text = packet.toString("latin1");
  const start = text.lastIndexOf("\n", Math.max(0, errorOffset - 1)) + 1;
  const end = text.indexOf("\r\n\r\n", start);
  const [requestLine = "", ...headerLines] = text.slice(start, end < 0 ? undefined : end).split("\r\n");
  const request = REQUEST_LINE.exec(requestLine);
  if (!request?.[1] || !request[2]) return undefined;
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    if (colon <= 0 || !HEADER_NAME.test(line.slice(0, colon))) continue;
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { method: request[1], target: request[2], headers };
}
