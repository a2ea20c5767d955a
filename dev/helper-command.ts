import {
  type ParsedLine,
  parseSmallCommand,
  type SmallCommand,
  smallCommandHelp,
  smallCommandRefusal,
  UsageError,
} from "../client/cli/args";
import { describeFailure } from "./startup-error";

/**
 * Runs a repository helper (`npm run receive`, `token`, `seed`, `rotate-key`) on its command line:
 * `--help` prints its help (exit code 0); a command-line mistake, found by the parse or by `main`,
 * is one line with a hint to `--help` (exit code 2); any other failure is printed as `describe`
 * says (exit code 1).
 */
export function runHelper(
  command: SmallCommand,
  main: (line: ParsedLine) => Promise<void>,
  describe: (error: unknown) => string = describeFailure,
): void {
  const fail = (error: unknown): void => {
    const usage = error instanceof UsageError;
    console.error(usage ? smallCommandRefusal(command, error) : describe(error));
    // Exits at once: a client the failure left open must not keep the helper running.
    process.exit(usage ? 2 : 1);
  };
  Promise.resolve()
    .then(() => parseSmallCommand(command, process.argv.slice(2)))
    .then((line) => (line === "help" ? void process.stdout.write(smallCommandHelp(command)) : main(line)))
    .catch(fail);
}
