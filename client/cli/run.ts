import { readFileSync } from "node:fs";
import * as path from "node:path";
import { ServiceError } from "../service-error";
import { TwinServiceClient } from "../twin-service-client";
import { CLIENT_VERSION } from "../version";
import {
  type OptionSpec,
  type OptionValues,
  optionHelp,
  parseLine,
  peekLine,
  stringOption,
  UsageError,
} from "./args";
import { COMMAND_OPTIONS, type CommandSpec, GROUPS, type GroupSpec, type Outcome } from "./commands";
import { AuthenticationError, isCredentialFailure, LOCAL_APP_ID_URI, resolveConnection } from "./credentials";
import { CliFailure, EXIT, EXIT_CODES_HELP } from "./exit-codes";
import { withoutSignatures } from "./storage-access";

/** What `twin` reads and writes: the process's, or a test's. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readStdin(): Promise<string>;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export const GLOBAL_OPTIONS: OptionSpec[] = [
  {
    name: "base-url",
    type: "string",
    value: "url",
    description: "the service, e.g. https://<app>.azurewebsites.net; default: TWIN_BASE_URL, or --local's",
  },
  {
    name: "local",
    type: "boolean",
    description:
      "the local stack: its address and token (or keys) from .local/local.env, which `npm start` writes",
  },
  // Not --env-file: Node 20 takes that for itself wherever it is on the command line.
  {
    name: "local-env",
    type: "string",
    value: "path",
    description:
      "the file --local reads (default $LOCAL_DATA_DIR/local.env, else .local/local.env in the current folder)",
  },
  {
    name: "key",
    type: "string",
    value: "function key",
    description: "a Functions key (a service with AUTH_MODE=keys); default: TWIN_FUNCTION_KEY",
  },
  {
    name: "scope",
    type: "string",
    value: "scope",
    description:
      "what DefaultAzureCredential's token is for; default: $AUTH_APP_ID_URI/.default, else api://$SERVICE_API_CLIENT_ID/.default (or $AUTH_CLIENT_ID)",
  },
  {
    name: "output",
    type: "string",
    short: "o",
    value: "table|json",
    description: "table (the default) or json",
  },
  { name: "help", type: "boolean", short: "h", description: "this text" },
  { name: "version", type: "boolean", description: "the version of twin" },
];

const CREDENTIALS_HELP = `Credentials, the first that applies:
  --key <function key>, or TWIN_FUNCTION_KEY   a Functions key (the service runs with AUTH_MODE=keys)
  --local                                      the local stack's, from .local/local.env: its TOKEN, or under
                                               AUTH_MODE=keys its FUNCTION_KEY (MASTER_KEY for role assignment writes)
  otherwise                                    DefaultAzureCredential (environment, workload or managed identity,
                                               az login, azd auth login, ...) for --scope (${LOCAL_APP_ID_URI}/.default on loopback)
Keys and tokens are never printed.`;

function topUsage(): string {
  const width = Math.max(...GROUPS.map((group) => group.name.length));
  return `twin: the twin resource service from the command line (${CLIENT_VERSION}).

Usage: twin <group> <command> [arguments] [options]

Groups:
${GROUPS.map((group) => `  ${group.name.padEnd(width)}  ${group.summary}`).join("\n")}

Global options (with any command):
${optionHelp(GLOBAL_OPTIONS)}

${CREDENTIALS_HELP}

Examples:
  twin profiles list --local
  twin profiles show warehouse-sso --base-url https://<app>.azurewebsites.net --scope api://<client id>/.default
  twin endpoints list --instance <instance id> --key "$FUNCTION_KEY" --base-url http://127.0.0.1:7071 --output json
  twin events post --instance <instance id> --file - --local < events.json

Run \`twin <group> --help\` for a group's commands, \`twin <group> <command> --help\` for one's options.

${EXIT_CODES_HELP}`;
}

function groupUsage(group: GroupSpec): string {
  const width = Math.max(...group.commands.map((command) => command.name.length));
  return `Usage: twin ${group.name} <command> [arguments] [options]

${group.summary[0]?.toUpperCase()}${group.summary.slice(1)}.

Commands:
${group.commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join("\n")}

Run \`twin ${group.name} <command> --help\` for a command's options; \`twin --help\` for the global ones.`;
}

function commandLine(group: GroupSpec, command: CommandSpec): string {
  return `twin ${group.name} ${command.name}${command.args ? ` ${command.args}` : ""} [options]`;
}

function commandUsage(group: GroupSpec, command: CommandSpec): string {
  return [
    `Usage: ${commandLine(group, command)}`,
    "",
    `${command.summary[0]?.toUpperCase()}${command.summary.slice(1)}.`,
    ...(command.description ? ["", command.description] : []),
    ...(command.options.length > 0 ? ["", "Options:", optionHelp(command.options)] : []),
    "",
    "Global options:",
    optionHelp(GLOBAL_OPTIONS),
    "",
    CREDENTIALS_HELP,
    "",
    "Examples:",
    ...command.examples.map((example) => `  ${example}`),
    "",
    EXIT_CODES_HELP,
  ].join("\n");
}

/** Replaces every known secret, and any SAS signature, in a text: nothing written carries a key or a token. */
function redactor(secrets: string[]): (text: string) => string {
  // Longest first: a SAS query holds its signature.
  const known = secrets.filter((secret) => secret.length >= 4).sort((a, b) => b.length - a.length);
  return (text) =>
    withoutSignatures(known.reduce((result, secret) => result.split(secret).join("***"), text));
}

interface Failure {
  code: number;
  error: Record<string, unknown>;
  text: string;
}

/**
 * What DefaultAzureCredential's failure says, a line each: its own, then each credential it tried
 * (AggregateAuthenticationError's `errors`), whose first line is the one that tells a person what to do.
 */
function credentialReasons(error: unknown): string[] {
  const firstLine = (cause: unknown) =>
    (cause instanceof Error ? cause.message : String(cause)).split("\n")[0] ?? "";
  const tried = (error as { errors?: unknown }).errors;
  return [firstLine(error), ...(Array.isArray(tried) ? tried.map(firstLine) : [])];
}

function describeFailure(error: unknown, usage: string | undefined): Failure {
  if (error instanceof UsageError) {
    const hint = error.usage ?? usage;
    return {
      code: EXIT.usage,
      error: { code: "UsageError", message: error.message },
      text: `error: ${error.message}${hint ? `\n\n${hint.split("\n")[0]}\nRun it with --help for more.` : ""}`,
    };
  }
  if (error instanceof AuthenticationError) {
    return {
      code: EXIT.authentication,
      error: { code: "AuthenticationFailed", message: error.message },
      text: `error: no credential: ${error.message}`,
    };
  }
  if (isCredentialFailure(error)) {
    const reasons = credentialReasons(error);
    return {
      code: EXIT.authentication,
      error: { code: "AuthenticationFailed", message: reasons.join("\n") },
      text: [
        `error: no credential: ${reasons[0]}`,
        ...reasons.slice(1).map((reason) => `  ${reason}`),
        "Sign in (az login, azd auth login, or a managed or workload identity), or give --key, or --local for the local stack.",
      ].join("\n"),
    };
  }
  if (error instanceof ServiceError) {
    const code =
      error.status === 401 ? EXIT.authentication : error.status === 404 ? EXIT.notFound : EXIT.service;
    const lines = [
      `error: ${error.status} ${error.message}`,
      ...(error.target !== undefined ? [`target: ${error.target}`] : []),
      ...error.details.map(
        (detail) => `  ${detail.code}: ${detail.message}${detail.target ? ` (${detail.target})` : ""}`,
      ),
      ...(error.requestId !== undefined ? [`x-ms-request-id: ${error.requestId}`] : []),
    ];
    return {
      code,
      error: {
        status: error.status,
        code: error.code,
        message: error.message.replace(`${error.code}: `, ""),
        ...(error.target !== undefined && { target: error.target }),
        ...(error.details.length > 0 && { details: error.details }),
        ...(error.requestId !== undefined && { requestId: error.requestId }),
      },
      text: lines.join("\n"),
    };
  }
  if (error instanceof CliFailure) {
    return {
      code: error.exitCode,
      error: { code: error.code, message: error.message },
      text: `error: ${error.message}`,
    };
  }
  if (error instanceof RangeError) {
    return {
      code: EXIT.usage,
      error: { code: "UsageError", message: error.message },
      text: `error: ${error.message}`,
    };
  }
  const restCode = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if ((error as { name?: unknown } | null)?.name === "RestError") {
    return {
      code: EXIT.service,
      error: { code: typeof restCode === "string" ? restCode : "RequestFailed", message },
      text: `error: could not reach the service: ${typeof restCode === "string" ? `${restCode} ` : ""}${message}`,
    };
  }
  return { code: EXIT.service, error: { code: "Failed", message }, text: `error: ${message}` };
}

async function readTextFile(file: string, io: CliIo): Promise<string> {
  const where = file === "-" ? "standard input" : file;
  try {
    return file === "-" ? await io.readStdin() : readFileSync(path.resolve(io.cwd, file), "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read ${where}: ${(error as Error).message}`);
  }
}

async function readJsonFile(file: string, io: CliIo): Promise<unknown> {
  const where = file === "-" ? "standard input" : file;
  const text = await readTextFile(file, io);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${where} is not JSON: ${(error as Error).message}`);
  }
}

function outputMode(values: OptionValues): "table" | "json" {
  const output = stringOption(values, "output") ?? "table";
  if (output !== "table" && output !== "json") {
    throw new UsageError(`--output takes table or json, not ${output}.`);
  }
  return output;
}

/** The service's client for the command line; what it must never print goes into `secrets`. */
async function connect(
  values: OptionValues,
  command: CommandSpec,
  io: CliIo,
  secrets: string[],
  usage: string,
): Promise<TwinServiceClient> {
  const connection = await resolveConnection(
    {
      baseUrl: stringOption(values, "base-url", usage),
      local: values.local === true,
      envFile: stringOption(values, "local-env", usage),
      key: stringOption(values, "key", usage),
      scope: stringOption(values, "scope", usage),
      masterKey: command.masterKey === true,
    },
    io.env,
    io.cwd,
  );
  secrets.push(...connection.secrets);
  return new TwinServiceClient({
    ...connection.options,
    userAgentOptions: { userAgentPrefix: `twin-cli/${CLIENT_VERSION}` },
  });
}

/** Runs `twin` with the arguments; resolves to the exit code (EXIT). */
export async function runCli(args: string[], io: CliIo): Promise<number> {
  const secrets: string[] = [];
  let json = false;
  let usage: string | undefined;
  try {
    const peeked = peekLine(args, [...GLOBAL_OPTIONS, ...COMMAND_OPTIONS]);
    json = peeked.values.output === "json";
    const key = peeked.values.key;
    if (typeof key === "string") secrets.push(key);
    const help = peeked.values.help === true;
    const [groupName, commandName, ...rest] = peeked.positionals;
    if (groupName === undefined) {
      if (peeked.values.version === true) {
        io.stdout(`${CLIENT_VERSION}\n`);
        return EXIT.ok;
      }
      if (help) {
        io.stdout(`${topUsage()}\n`);
        return EXIT.ok;
      }
      io.stderr(`${topUsage()}\n`);
      return EXIT.usage;
    }
    const group = GROUPS.find((each) => each.name === groupName);
    if (group === undefined) {
      throw new UsageError(
        `Unknown group: ${groupName}. The groups: ${GROUPS.map((each) => each.name).join(", ")}.`,
        "Usage: twin <group> <command> [arguments] [options]",
      );
    }
    if (commandName === undefined) {
      if (help) {
        io.stdout(`${groupUsage(group)}\n`);
        return EXIT.ok;
      }
      io.stderr(`${groupUsage(group)}\n`);
      return EXIT.usage;
    }
    const command = group.commands.find((each) => each.name === commandName);
    if (command === undefined) {
      throw new UsageError(
        `Unknown command: twin ${group.name} ${commandName}. The commands: ${group.commands.map((each) => each.name).join(", ")}.`,
        `Usage: twin ${group.name} <command> [arguments] [options]`,
      );
    }
    usage = `Usage: ${commandLine(group, command)}`;
    if (help) {
      io.stdout(`${commandUsage(group, command)}\n`);
      return EXIT.ok;
    }
    const { values } = parseLine(args, [...GLOBAL_OPTIONS, ...command.options], usage);
    // `npm start` keeps its data, local.env too, in LOCAL_DATA_DIR when that is set.
    const dataDir = io.env.LOCAL_DATA_DIR?.trim();
    if (values["local-env"] === undefined && dataDir) values["local-env"] = path.join(dataDir, "local.env");
    const mode = outputMode(values);
    json = mode === "json";
    if (rest.length > (command.positionals ?? 0)) {
      throw new UsageError(`Unexpected argument: ${rest[command.positionals ?? 0]}`, usage);
    }
    const client =
      command.calls === "storage" ? undefined : await connect(values, command, io, secrets, usage);
    const outcome: Outcome = await command.run({
      get client(): TwinServiceClient {
        if (client === undefined) throw new Error(`twin ${group.name} ${command.name} calls no service.`);
        return client;
      },
      cwd: io.cwd,
      secret: (text) => secrets.push(text),
      values,
      positionals: rest,
      usage,
      readJson: (file) => readJsonFile(file, io),
      readText: (file) => readTextFile(file, io),
    });
    const redact = redactor(secrets);
    const exitCode = outcome.exitCode ?? EXIT.ok;
    const text = mode === "json" ? JSON.stringify(outcome.json, null, 2) : outcome.text;
    if (exitCode === EXIT.ok || mode === "json") io.stdout(`${redact(text)}\n`);
    if (exitCode !== EXIT.ok && mode === "table") io.stderr(`error: ${redact(text)}\n`);
    return exitCode;
  } catch (error) {
    const failure = describeFailure(error, usage);
    const redact = redactor(secrets);
    io.stderr(`${redact(json ? JSON.stringify({ error: failure.error }, null, 2) : failure.text)}\n`);
    return failure.code;
  }
}
