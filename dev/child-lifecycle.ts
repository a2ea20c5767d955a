import { describeFailure } from "./startup-error";

/**
 * For the processes the launcher starts (dev/*-main.ts). Each also runs on its own: without a
 * launcher there is no IPC channel and the messages are skipped.
 */

/**
 * Tells the launcher this process serves now. If the launcher is gone already, the send's error
 * goes to the callback (an 'error' event would crash this mid-stop) and 'disconnect' stops it.
 */
export function reportReady(baseUrl?: string): void {
  if (process.connected) process.send?.({ ready: true, ...(baseUrl && { baseUrl }) }, () => {});
}

/** Runs `stop` once, then exits 0 (1 if it fails), on SIGTERM, SIGINT, or the launcher's channel closing (it died). */
export function stopOnSignal(name: string, stop: () => Promise<void>): void {
  let stopping = false;
  const onStop = () => {
    if (stopping) return;
    stopping = true;
    stop().then(() => process.exit(0), exitOnFailure(`${name}: failed while stopping`));
  };
  process.on("SIGTERM", onStop);
  process.on("SIGINT", onStop);
  if (process.send !== undefined) process.on("disconnect", onStop);
}

/** For a failure: a one-line message when the user can fix it, then exit 1. */
export function exitOnFailure(prefix: string): (error: unknown) => never {
  return (error) => {
    console.error(`${prefix}: ${describeFailure(error)}`);
    process.exit(1);
  };
}

export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal !== null ? `signal ${signal}` : `exit code ${code}`;
}
