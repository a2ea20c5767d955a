import { benchDelivery } from "./delivery-bench";
import { startBenchStack } from "./local-stack";

/**
 * `npm run bench`: throughput figures on this machine, printed with the ratios the project's goals
 * are stated in. A benchmark, not a test: it reports, and fails only if it cannot run.
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20000);
const BASELINE_EVENTS = Number(process.env.BENCH_BASELINE_EVENTS ?? 300);

function rate(perSecond: number): string {
  return `${Math.round(perSecond).toLocaleString("en-US")} events/s`;
}

async function main(): Promise<void> {
  console.log(`Starting the local stack (Cosmos server, Azurite, Service Bus stand-in, local host)...`);
  const stack = await startBenchStack();
  try {
    console.log(`Delivery: ${EVENTS} events end to end; per-event baseline over ${BASELINE_EVENTS} events.`);
    const figures = await benchDelivery(stack, EVENTS, BASELINE_EVENTS);
    const ofCeiling = figures.endToEndPerSecond / figures.ceilingPerSecond;
    const overBaseline = figures.endToEndPerSecond / figures.perEventBaselinePerSecond;
    console.log("");
    console.log(
      `  end to end (ingest -> queue -> trigger -> topic -> subscriber)  ${rate(figures.endToEndPerSecond)}`,
    );
    console.log(
      `  ceiling (raw SDK, batched sends to the same topic)              ${rate(figures.ceilingPerSecond)}`,
    );
    console.log(
      `  baseline (raw SDK, one send per event)                          ${rate(figures.perEventBaselinePerSecond)}`,
    );
    console.log("");
    console.log(
      `  end to end / ceiling   ${ofCeiling.toFixed(2)}  (goal >= 0.50: ${ofCeiling >= 0.5 ? "met" : "NOT met"})`,
    );
    console.log(
      `  end to end / baseline  ${overBaseline.toFixed(1)}x (goal >= 20x: ${overBaseline >= 20 ? "met" : "NOT met"})`,
    );
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
