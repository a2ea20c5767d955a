/** A header name as Node's parser hands it on: a token (RFC 9110 §5.6.2), in lower case. */
const LOWER_TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
/** A token in any case, as a name read from the record may be asked for. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A value Headers keeps as it is: bytes only, no NUL, CR or LF, nothing to trim at either end. */
const PLAIN_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;

function isPlain(record: Record<string, string>): boolean {
  // Headers reads a record into an object of its own, where a member __proto__ is lost.
  if (Object.hasOwn(record, "__proto__")) return false;
  for (const name of Object.keys(record)) {
    if (!LOWER_TOKEN.test(name) || !PLAIN_VALUE.test(record[name] as string)) return false;
  }
  return true;
}

const INSPECT = Symbol.for("nodejs.util.inspect.custom");

type HeaderEntries = ReturnType<Headers["entries"]>;

/** Headers' methods as methods (its type declares them as properties, which a subclass cannot override). */
interface HeadersMethods {
  get(name: string): string | null;
  has(name: string): boolean;
  append(name: string, value: string): void;
  set(name: string, value: string): void;
  delete(name: string): void;
  getSetCookie(): string[];
  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void;
  keys(): ReturnType<Headers["keys"]>;
  values(): ReturnType<Headers["values"]>;
  entries(): HeaderEntries;
  [Symbol.iterator](): HeaderEntries;
}

const HeadersClass = Headers as unknown as new (init?: Record<string, string>) => HeadersMethods;

/**
 * The request's Headers, read from the received record until something needs the real list. A
 * handler reads a few headers by name; filling a Headers validates and copies every one, a few
 * microseconds a request. When every name is a lower-case token and every value one Headers keeps
 * unchanged (as Node's parser hands them on), get and has answer from the record exactly as the
 * filled Headers would; anything else (iteration, a change, an unusual name) fills it first, and a
 * record with anything unusual is filled at once, so every error is the one Headers gives.
 */
export class ReceivedHeaders extends HeadersClass {
  #record: Record<string, string> | undefined;

  constructor(record: Record<string, string>) {
    const lazy = isPlain(record);
    super(lazy ? undefined : record);
    this.#record = lazy ? record : undefined;
  }

  override get(name: string): string | null {
    const record = this.#record;
    if (record !== undefined && typeof name === "string" && TOKEN.test(name)) {
      const key = name.toLowerCase();
      return Object.hasOwn(record, key) ? (record[key] as string) : null;
    }
    this.fill();
    return super.get(name);
  }

  override has(name: string): boolean {
    const record = this.#record;
    if (record !== undefined && typeof name === "string" && TOKEN.test(name)) {
      return Object.hasOwn(record, name.toLowerCase());
    }
    this.fill();
    return super.has(name);
  }

  override append(name: string, value: string): void {
    this.fill();
    super.append(name, value);
  }

  override set(name: string, value: string): void {
    this.fill();
    super.set(name, value);
  }

  override delete(name: string): void {
    this.fill();
    super.delete(name);
  }

  override getSetCookie(): string[] {
    this.fill();
    return super.getSetCookie();
  }

  override forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    this.fill();
    super.forEach(callback, thisArg);
  }

  override keys(): ReturnType<Headers["keys"]> {
    this.fill();
    return super.keys();
  }

  override values(): ReturnType<Headers["values"]> {
    this.fill();
    return super.values();
  }

  override entries(): HeaderEntries {
    this.fill();
    return super.entries();
  }

  override [Symbol.iterator](): HeaderEntries {
    this.fill();
    return super[Symbol.iterator]();
  }

  [INSPECT](...args: unknown[]): unknown {
    this.fill();
    const inspect = (Headers.prototype as unknown as Record<symbol, (...a: unknown[]) => unknown>)[INSPECT];
    return inspect ? inspect.apply(this, args) : this;
  }

  /** Appends the record's headers, in its order, as new Headers(record) would; once. */
  private fill(): void {
    const record = this.#record;
    if (record === undefined) return;
    this.#record = undefined;
    for (const name of Object.keys(record)) super.append(name, record[name] as string);
  }
}
