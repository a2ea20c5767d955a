import { readdirSync, readFileSync } from "node:fs";

import Module = require("node:module");

import * as path from "node:path";

/**
 * Loads a function app package as the Azure Functions Node.js worker does, and invokes what it
 * registers through the same programming-model calls the worker makes. For checking a deployment
 * package (infra/scripts/stage-package.js) without the Functions host: the package's own
 * `@azure/functions` registers the functions and converts every request and response.
 *
 * What the worker does, after azure-functions-nodejs-worker (src/setupCoreModule.ts and its
 * invocation handler): it answers `require("@azure/functions-core")` with its own API by wrapping
 * Module.prototype.require, then requires each file package.json's `main` names (a glob is allowed);
 * `@azure/functions` calls setProgrammingModel and registerFunction on that API. For an invocation it
 * asks the programming model for an invocation model, then calls getArguments, invokeFunction and
 * getResponse. Only what this package's functions use is modelled: HTTP and queue triggers, no hooks.
 */

/** The parts of the worker's RPC types (the host's gRPC protocol) that these invocations use. */
export interface RpcTypedData {
  string?: string;
  json?: string;
  bytes?: Uint8Array;
  http?: RpcHttpData;
}
interface RpcHttpData {
  method?: string;
  url?: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  params?: Record<string, string>;
  body?: RpcTypedData;
  statusCode?: string;
}
export interface RpcBindingInfo {
  type?: string;
  /** An HTTP trigger's: its route template, methods and key level. */
  route?: string;
  methods?: string[];
  authLevel?: string;
  /** A queue trigger's: its queue and the app setting of its storage connection. */
  queueName?: string;
  connection?: string;
}
export interface FunctionMetadata {
  name: string;
  bindings: Record<string, RpcBindingInfo>;
}
type FunctionCallback = (...args: unknown[]) => unknown;
interface InvocationModel {
  getArguments(): Promise<{ context: unknown; inputs: unknown[] }>;
  invokeFunction(context: unknown, inputs: unknown[], callback: FunctionCallback): Promise<unknown>;
  getResponse(context: unknown, result: unknown): Promise<{ returnValue?: RpcTypedData | null }>;
}
interface ProgrammingModel {
  name: string;
  version: string;
  getInvocationModel(coreContext: unknown): InvocationModel;
}

export interface RegisteredFunction {
  metadata: FunctionMetadata;
  callback: FunctionCallback;
}

export interface HttpInvocation {
  method: string;
  /** The request's URL, as the host passes it (absolute). */
  url: string;
  headers?: Record<string, string>;
  /** The route's parameters, as the host matched them. */
  params?: Record<string, string>;
  body?: string | Uint8Array;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  /** The body as text (UTF-8), and as the bytes the function answered. */
  body: string;
  bytes: Uint8Array;
}

export interface LogLine {
  level: string;
  category: string;
  message: string;
  /** The function whose invocation logged it; absent for what the library logs outside one. */
  functionName?: string;
}

export interface FunctionApp {
  readonly programmingModel: string;
  readonly functions: ReadonlyMap<string, RegisteredFunction>;
  /** Every line the functions and the library logged through the worker, unless a `log` was given. */
  readonly logs: LogLine[];
  invokeHttp(name: string, request: HttpInvocation): Promise<HttpResult>;
  /**
   * A queue-triggered function given one message's text, as the host passes it (decoded), and the
   * binding data the host sends with it (DequeueCount, Id, ...), which the library camel-cases.
   */
  invokeQueue(
    name: string,
    message: string,
    triggerMetadata?: Record<string, RpcTypedData>,
    invocationId?: string,
  ): Promise<void>;
}

/** The files package.json's `main` names under `root`: one file, or a `*` glob in the last segment. */
function entryFiles(root: string): string[] {
  const main = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { main?: string }).main;
  if (!main) throw new Error(`${root}/package.json names no main entry point`);
  const directory = path.join(root, path.dirname(main));
  const pattern = new RegExp(`^${path.basename(main).replaceAll(".", "\\.").replaceAll("*", ".*")}$`);
  return readdirSync(directory)
    .filter((file) => pattern.test(file))
    .sort()
    .map((file) => path.join(directory, file));
}

let loaded: FunctionApp | undefined;

/** Loads the package at `root` (once per process: the worker's require hook is global). */
export function loadFunctionApp(
  root: string,
  /** Where the lines the functions log go; by default they are kept in `logs`. */
  options: { log?: (line: LogLine) => void } = {},
): FunctionApp {
  if (loaded) throw new Error("a function app is already loaded in this process");
  const functions = new Map<string, RegisteredFunction>();
  const logs: LogLine[] = [];
  const log = options.log ?? ((line: LogLine) => logs.push(line));
  let programmingModel: ProgrammingModel | undefined;
  // What @azure/functions 4 calls on the worker's API; it reads none of its other members.
  const coreApi = {
    setProgrammingModel(model: ProgrammingModel) {
      programmingModel = model;
    },
    registerFunction(metadata: FunctionMetadata, callback: FunctionCallback) {
      if (functions.has(metadata.name))
        throw new Error(`A function named "${metadata.name}" is already registered`);
      functions.set(metadata.name, { metadata, callback });
      return { dispose: () => functions.delete(metadata.name) };
    },
    registerHook: () => ({ dispose() {} }),
    log(level: string, category: string, message: string) {
      log({ level, category, message });
    },
  };
  const originalRequire = Module.prototype.require;
  Module.prototype.require = new Proxy(originalRequire, {
    apply(target, thisArg, argArray: [string]) {
      return argArray[0] === "@azure/functions-core" ? coreApi : Reflect.apply(target, thisArg, argArray);
    },
  });
  for (const file of entryFiles(root)) require(file);
  if (!programmingModel)
    throw new Error(`${root} set no programming model: is @azure/functions in its bundle?`);
  const model = programmingModel;

  async function invoke(
    name: string,
    data: RpcTypedData,
    triggerMetadata = {},
    invocationId: string = crypto.randomUUID(),
  ) {
    const registered = functions.get(name);
    if (!registered) throw new Error(`no function named "${name}" is registered`);
    // The trigger binding's name (`request`, `queueItem`, ...), as the host sends the input.
    const inputName = Object.entries(registered.metadata.bindings).find(([, binding]) =>
      binding.type?.toLowerCase().endsWith("trigger"),
    )?.[0];
    if (!inputName) throw new Error(`${name} has no trigger binding`);
    const invocationModel = model.getInvocationModel({
      invocationId,
      request: { inputData: [{ name: inputName, data }], triggerMetadata },
      metadata: registered.metadata,
      state: "invocation",
      log: (level: string, category: string, message: string) =>
        log({ level, category, message, functionName: name }),
    });
    const { context, inputs } = await invocationModel.getArguments();
    const result = await invocationModel.invokeFunction(context, inputs, registered.callback);
    return invocationModel.getResponse(context, result);
  }

  loaded = {
    programmingModel: `${model.name}@${model.version}`,
    functions,
    logs,
    async invokeHttp(name, request) {
      const url = new URL(request.url);
      const response = await invoke(name, {
        http: {
          method: request.method,
          url: request.url,
          headers: request.headers ?? {},
          query: Object.fromEntries(url.searchParams),
          params: request.params ?? {},
          body: request.body === undefined ? {} : { bytes: Buffer.from(request.body) },
        },
      });
      const http = response.returnValue?.http;
      if (!http) throw new Error(`${name} answered no HTTP response`);
      const bytes = http.body?.bytes ?? new Uint8Array();
      return {
        status: Number(http.statusCode),
        headers: http.headers ?? {},
        body: Buffer.from(bytes).toString("utf8"),
        bytes,
      };
    },
    async invokeQueue(name, message, triggerMetadata = {}, invocationId) {
      const metadata = { QueueTrigger: { string: message }, ...triggerMetadata };
      await invoke(name, { string: message }, metadata, invocationId);
    },
  };
  return loaded;
}
