import { startDelayRelay } from "./delay-relay";

/**
 * The delay relay as a process of its own (spawned by delay-relay-process.ts), so the chunks it
 * holds and forwards cost the measured host nothing. argv: upstream port, round trip in ms.
 * Answers "connections" messages with how many connections it has accepted; ends with its parent.
 */
async function main(): Promise<void> {
  const upstreamPort = Number(process.argv[2]);
  const roundTripMs = Number(process.argv[3]);
  if (!Number.isInteger(upstreamPort) || !(roundTripMs >= 0)) {
    throw new Error("usage: delay-relay-main <upstream port> <round trip ms>");
  }
  const relay = await startDelayRelay(upstreamPort, roundTripMs);
  process.on("message", (message) => {
    if (message === "connections") process.send?.({ connections: relay.connections() });
  });
  process.on("disconnect", () => void relay.close().finally(() => process.exit(0)));
  process.send?.({ port: relay.port });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
