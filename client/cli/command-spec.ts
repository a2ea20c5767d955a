import type { TwinServiceClient } from "../twin-service-client";
import type { OptionSpec, OptionValues } from "./args";

/** The shape of `twin`'s commands: what each declares, what it is given, what it answers. */

/** What a command answers: JSON for `--output json`, text for people, and the exit code. */
export interface Outcome {
  json: unknown;
  text: string;
  /** 0 unless said: `delete` of nothing answers 4 (not found). */
  exitCode?: number;
}

export interface CommandContext {
  /** The service's client; a command that `calls: "storage"` has none. */
  client: TwinServiceClient;
  values: OptionValues;
  positionals: string[];
  usage: string;
  /** The JSON in a file, or in standard input for `-`; a UsageError when it is not JSON. */
  readJson(file: string): Promise<unknown>;
  /** The text in a file, or in standard input for `-`; a UsageError when it cannot be read. */
  readText(file: string): Promise<string>;
  /** The folder `twin` runs in: where `--local` finds .local/local.env. */
  cwd: string;
  /** Text that must never be printed (a SAS URL's query): hidden in everything `twin` writes. */
  secret(text: string): void;
}

export interface CommandSpec {
  name: string;
  /** The arguments as the usage line shows them: `<name|id>`. */
  args?: string;
  /** How many arguments it takes (default none). */
  positionals?: number;
  summary: string;
  description?: string;
  options: OptionSpec[];
  examples: string[];
  /** Under AUTH_MODE=keys, the call takes the master key: `--local` sends the stack's MASTER_KEY. */
  masterKey?: boolean;
  /**
   * What it calls: the service (the default: a connection to it is resolved first), or only
   * Azure Storage with the operator's own access (no service address or credential needed).
   */
  calls?: "service" | "storage";
  run(context: CommandContext): Promise<Outcome>;
}

export interface GroupSpec {
  name: string;
  summary: string;
  commands: CommandSpec[];
}
