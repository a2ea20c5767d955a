import { describeFailure } from "./startup-error";

/**
 * Helpers for the processes the launcher starts (dev/*-main.ts). Each also runs on its own:
 * without a launcher there is no IPC channel and the messages below are skipped.
 */

/**
 * Tells the launcher this process serves now. A launcher that went away while this process started
 * has closed the channel: the send's error comes to the callback (not as an unhandled 'error'
 * event, which would crash it mid-stop), and the 'disconnect' handler of stopOnSignal stops it.
 */
export function reportReady(): void {
  if (process.connected) process.send?.({ ready: true }, () => {});
}

/**
 * Runs `stop` once, then exits 0 (1 if it fails), when asked to stop: SIGTERM or SIGINT, or the
 * launcher's IPC channel closing, which means the launcher died without stopping its children.
 */
export function stopOnSignal(name: string, stop: () => Promise<void>): void {
  let stopping = false;
  const onStop = () => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`${name}: failed while stopping: ${describeFailure(error)}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onStop);
  process.on("SIGINT", onStop);
  if (process.send !== undefined) process.on("disconnect", onStop);
}

/** For a start-up failure: a one-line message when the user can fix it, then exit 1. */
export function exitOnFailure(name: string): (error: unknown) => never {
  return (error) => {
    console.error(`${name}: ${describeFailure(error)}`);
    process.exit(1);
  };
}
