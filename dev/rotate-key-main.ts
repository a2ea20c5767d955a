import { displayPath } from "./local-paths";
import { rotateLocalSecretsKey } from "./local-secrets-key";
import { loadLocalSettings } from "./local-settings";
import { describeFailure } from "./startup-error";

/**
 * `npm run rotate-key`: replaces the local stack's key for endpoint secrets with a new one and
 * keeps the old one as a previous key, so a plain `npm start` afterwards seals with the new key
 * and still opens every stored endpoint. A running stack keeps the old key until it restarts.
 */
function main(): void {
  const { values } = loadLocalSettings(process.env);
  const { file, previousFile, previous } = rotateLocalSecretsKey(values);
  console.log(
    [
      `Wrote a new key to ${displayPath(file)}; the old one is kept in ${displayPath(previousFile)} (${previous} previous key${previous === 1 ? "" : "s"}).`,
      "Restart the local stack (Ctrl+C, then npm start) to use it: endpoints sealed with earlier keys still open,",
      "and each endpoint written from then on is sealed with the new key. Then re-seal the others under it:",
      "POST /providers/TwinResources/resealSecrets (docs/operations.md, Rotating the encryption key).",
    ].join("\n"),
  );
}

try {
  main();
} catch (error) {
  console.error(describeFailure(error));
  process.exitCode = 1;
}
