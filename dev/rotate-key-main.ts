import type { SmallCommand } from "../client/cli/args";
import { runHelper } from "./helper-command";
import { localEnvFile } from "./local-env-file";
import { displayPath } from "./local-paths";
import { rotateLocalSecretsKey } from "./local-secrets-key";
import { loadLocalSettings } from "./local-settings";
import { answersHttp, stackRecord } from "./running-stack";

const COMMAND: SmallCommand = {
  command: "npm run rotate-key",
  summary:
    "Writes a new local key for endpoint secrets and keeps the old one as a previous key: the next\n`npm start` seals with the new key and still opens every stored endpoint. Works with the stack stopped.",
  examples: ["npm run rotate-key"],
};

async function main(): Promise<void> {
  const { values } = loadLocalSettings(process.env);
  const { file, previousFile, previous } = rotateLocalSecretsKey(values);
  const stack = stackRecord(values);
  const running = stack !== undefined && (await answersHttp(`${stack.baseUrl}/health`));
  // Under AUTH_MODE=keys the re-seal takes the master key; under entra an Owner's token.
  const caller =
    stack?.values.STACK_AUTH_MODE === "keys"
      ? '-H "x-functions-key: $MASTER_KEY"'
      : '-H "Authorization: Bearer $TOKEN"';
  console.log(
    [
      `Wrote a new key to ${displayPath(file)}; the old one is kept in ${displayPath(previousFile)} (${previous} previous key${previous === 1 ? "" : "s"}).`,
      running
        ? `The stack at ${stack.baseUrl} keeps the old key until it restarts: Ctrl+C it, then start it again as you did (the same port settings), to use the new one.`
        : `No local stack is running${stack === undefined ? "" : ` (nothing answers at ${stack.baseUrl})`}: the next \`npm start\` uses the new key.`,
      "Endpoints sealed with earlier keys still open, and each endpoint written from then on is sealed with the new key.",
      "Then re-seal the others under it (docs/operations.md, Rotating the encryption key), at the BASE_URL the restarted stack wrote:",
      `  source ${displayPath(localEnvFile(values))} && curl -X POST "$BASE_URL/providers/TwinResources/resealSecrets" ${caller}`,
    ].join("\n"),
  );
}

runHelper(COMMAND, main);
