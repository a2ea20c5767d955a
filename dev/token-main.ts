import { parseCommandLine } from "./cli-options";
import { localEnvFile, updateLocalEnvFile } from "./local-env-file";
import { displayPath } from "./local-paths";
import { loadLocalSettings } from "./local-settings";
import { DEVELOPER_TOKEN_HOURS, mintLocalToken } from "./local-token";
import { DEVELOPER, principalObjectId } from "./stand-ins/openid-issuer";
import { describeFailure, StartupError } from "./startup-error";

/**
 * `npm run token`: a token of the running stack's issuer for `name` (default: renews TOKEN in
 * `.local/local.env`), or with --object-id only the object id (no stack needed). Only the token
 * goes to stdout: `TOKEN=$(npm run -s token -- alice)`. docs/development.md has the options.
 */
const USAGE = "npm run token -- [name] [--app] [--hours N] [--object-id]";

async function main(): Promise<void> {
  const { positionals, numbers, flags } = parseCommandLine(process.argv.slice(2), ["hours"], USAGE, [
    "app",
    "object-id",
  ]);
  if (positionals.length > 1) throw new StartupError(`Too many arguments.\nUsage: ${USAGE}`);
  const [named] = positionals;
  if (named === undefined && flags.app) throw new StartupError(`--app needs a name.\nUsage: ${USAGE}`);
  if (named?.trim() === "") throw new StartupError(`The principal name is empty.\nUsage: ${USAGE}`);
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
  process.exitCode = 1;
});
