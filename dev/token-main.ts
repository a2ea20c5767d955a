import { type CommandSpec, commandLine, exitCodeOf, usageError } from "./cli-options";
import { localEnvFile, updateLocalEnvFile } from "./local-env-file";
import { displayPath } from "./local-paths";
import { loadLocalSettings } from "./local-settings";
import { DEVELOPER_TOKEN_HOURS, MAX_TOKEN_HOURS, mintLocalToken } from "./local-token";
import { DEVELOPER, principalObjectId } from "./stand-ins/openid-issuer";
import { describeFailure } from "./startup-error";

/**
 * `npm run token`: a token of the running stack's issuer for `name` (default: renews TOKEN in
 * `.local/local.env`), or with --object-id only the object id (no stack needed). Only the token
 * goes to stdout: `TOKEN=$(npm run -s token -- alice)`. docs/development.md has the options.
 */
const COMMAND = {
  command: "npm run token",
  summary:
    "Prints a token of the running stack's local issuer (only the token goes to stdout). Without a name,\nrenews the developer's TOKEN in .local/local.env.",
  arguments: [{ name: "name", description: `the principal (default ${DEVELOPER}, renewing TOKEN)` }],
  numbers: {
    hours: {
      placeholder: "N",
      description: `valid N hours (default ${DEVELOPER_TOKEN_HOURS}, at most ${MAX_TOKEN_HOURS})`,
      max: MAX_TOKEN_HOURS,
    },
  },
  flags: {
    app: { description: "an application's token (no scp claim); needs a name" },
    "object-id": { description: "print only the principal's object id (no stack needed)" },
  },
  examples: ["TOKEN=$(npm run -s token -- alice)", "npm run -s token -- ingest --app --hours 2"],
} satisfies CommandSpec<"hours", "app" | "object-id">;

async function main(): Promise<void> {
  const { positionals, numbers, flags } = commandLine(COMMAND);
  const [named] = positionals;
  if (named === undefined && flags.app) throw usageError(COMMAND, "--app needs a name");
  if (named?.trim() === "") throw usageError(COMMAND, "The principal name is empty");
  const name = named ?? DEVELOPER;
  if (flags["object-id"]) {
    console.log(principalObjectId(name));
    return;
  }
  const { values } = loadLocalSettings(process.env);
  const hours = numbers.hours ?? DEVELOPER_TOKEN_HOURS;
  const { token, objectId } = await mintLocalToken(values, { name, app: flags.app === true, hours });
  const kind = flags.app ? "application" : "user";
  if (named === undefined && updateLocalEnvFile({ TOKEN: token }, values)) {
    console.error(
      `Renewed TOKEN in ${displayPath(localEnvFile(values))} (${name}, ${hours} h): source it again in shells that use it.`,
    );
  } else {
    console.error(`A token for ${kind} ${name} (object id ${objectId}), valid ${hours} h:`);
  }
  console.log(token);
}

main().catch((error: unknown) => {
  console.error(describeFailure(error));
  process.exitCode = exitCodeOf(error);
});
