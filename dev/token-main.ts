import { parseCommandLine } from "./cli-options";
import { localEnvFile, updateLocalEnvFile } from "./local-env-file";
import { displayPath } from "./local-paths";
import { loadLocalSettings } from "./local-settings";
import { DEVELOPER_TOKEN_HOURS, mintLocalToken } from "./local-token";
import { DEVELOPER, principalObjectId } from "./stand-ins/openid-issuer";
import { describeFailure, StartupError } from "./startup-error";

/**
 * `npm run token -- [name] [--app] [--hours N]`: prints a bearer token of the local OpenID issuer
 * for the principal called `name` (a user; with --app an application), valid N hours (default 8).
 * Without a name it renews the developer's TOKEN in `.local/local.env` and prints it. Only the
 * token goes to stdout, so `TOKEN=$(npm run -s token -- alice)` works. Tokens are signed for the
 * issuer of the stack `npm start` runs (AUTH_AUTHORITY in `.local/local.env`, whatever port it
 * took); without a running stack it refuses. With --object-id it prints only the principal's
 * object id (what a role assignment names, the same on every machine): it mints nothing, so it
 * needs no stack.
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
