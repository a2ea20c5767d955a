/** The parts of a request the host needs to answer it: method, target and headers. */
export interface RequestHead {
  method: string;
  target: string;
  headers: Record<string, string>;
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const REQUEST_LINE = new RegExp(`^(${TOKEN}) (\\S+) HTTP/1\\.[01]$`);
const HEADER_NAME = new RegExp(`^${TOKEN}$`);
/** What a header value may not hold (RFC 9110 §5.5): control characters other than tab, and DEL. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** The line that starts at `start`, without its line break. */
function lineAt(text: string, start: number): string {
  const end = text.indexOf("\r\n", start);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The head from its request line on: the header lines up to the blank line, those HTTP allows. */
function headFrom(text: string, start: number): RequestHead | undefined {
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
    if (CONTROL.test(value)) continue;
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { method: request[1], target: request[2], headers };
}

/**
 * Reads the head of a request Node's HTTP parser refused (it knows a fixed list of methods, in
 * upper case: `FOO` and `get` are parse errors), from the packet it failed on, so the host can
 * still answer 405 instead of a bare 400. `errorOffset` is where in the packet parsing failed: the
 * request line is the one around it (earlier requests of a pipelined packet come before). Header
 * lines past the packet are not seen; undefined when the request line is not HTTP/1.x.
 */
export function readRequestHead(packet: Buffer, errorOffset: number): RequestHead | undefined {
  const text = packet.toString("latin1");
  return headFrom(text, text.lastIndexOf("\n", Math.max(0, errorOffset - 1)) + 1);
}

/** A request refused for a line of its head: what can be read of it, and the header that failed. */
export interface RefusedHead {
  head?: RequestHead;
  /** The name of the header whose line the parser failed on, when it is a header name. */
  header?: string;
}

/**
 * Reads what it can of a request whose head the parser refused on a header line (a control
 * character in a value, a blank in a name): the request line is the nearest one above the failing
 * line, within the same head; headers that are not valid HTTP are left out.
 */
export function readRefusedHead(packet: Buffer, errorOffset: number): RefusedHead {
  const text = packet.toString("latin1");
  const failing = text.lastIndexOf("\n", Math.max(0, errorOffset - 1)) + 1;
  const failingLine = lineAt(text, failing);
  const colon = failingLine.indexOf(":");
  const name = colon > 0 ? failingLine.slice(0, colon) : "";
  const header = HEADER_NAME.test(name) ? name : undefined;
  let start = failing;
  while (start >= 0) {
    const line = lineAt(text, start);
    if (REQUEST_LINE.test(line)) return { head: headFrom(text, start), ...(header && { header }) };
    // A blank line ends the previous request's head: this one's request line is not in the packet.
    if (start === 0 || (line === "" && start !== failing)) break;
    start = text.lastIndexOf("\n", start - 2) + 1;
  }
  return header ? { header } : {};
}
