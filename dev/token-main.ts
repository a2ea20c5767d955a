import { type ParsedLine, type SmallCommand, UsageError, wholeNumberOption } from "../client/cli/args";
import { runHelper } from "./helper-command";
import { localEnvFile, updateLocalEnvFile } from "./local-env-file";
import { displayPath } from "./local-paths";
import { loadLocalSettings } from "./local-settings";
import { DEVELOPER_TOKEN_HOURS, MAX_TOKEN_HOURS, mintLocalToken } from "./local-token";
import { DEVELOPER, principalObjectId } from "./stand-ins/openid-issuer";

const COMMAND: SmallCommand = {
  command: "npm run token",
  summary:
    "Prints a token of the running stack's local issuer (only the token goes to stdout). Without a name,\nrenews the developer's TOKEN in .local/local.env.",
  arguments: [{ name: "name", description: `the principal (default ${DEVELOPER}, renewing TOKEN)` }],
  options: [
    {
      name: "hours",
      type: "string",
      value: "N",
      description: `valid N hours (default ${DEVELOPER_TOKEN_HOURS}, at most ${MAX_TOKEN_HOURS})`,
    },
    { name: "app", type: "boolean", description: "an application's token (no scp claim); needs a name" },
    { name: "object-id", type: "boolean", description: "print only its object id (no stack needed)" },
  ],
  examples: ["TOKEN=$(npm run -s token -- alice)", "npm run -s token -- ingest --app --hours 2"],
};

async function main({ positionals: [named], values }: ParsedLine): Promise<void> {
  const app = values.app === true;
  const hours = wholeNumberOption(values, "hours", MAX_TOKEN_HOURS) ?? DEVELOPER_TOKEN_HOURS;
  if (named === undefined && app) throw new UsageError("--app needs a name");
  if (named?.trim() === "") throw new UsageError("The principal name is empty");
  const name = named ?? DEVELOPER;
  if (values["object-id"] === true) {
    console.log(principalObjectId(name));
    return;
  }
  const settings = loadLocalSettings(process.env).values;
  const { token, objectId } = await mintLocalToken(settings, { name, app, hours });
  const renewed = named === undefined && updateLocalEnvFile({ TOKEN: token }, settings);
  console.error(
    renewed
      ? `Renewed TOKEN in ${displayPath(localEnvFile(settings))} (${name}, ${hours} h): source it again in shells that use it.`
      : `A token for ${app ? "application" : "user"} ${name} (object id ${objectId}), valid ${hours} h:`,
  );
  console.log(token);
}

runHelper(COMMAND, main);
