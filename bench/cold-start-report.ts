import type { ColdStartFigures } from "./cold-start";
import type { ColdStartSteps } from "./cold-start-steps";
import { formatRange, goalVerdict, roundErrors } from "./rounds";

/** The cold-start goals (docs/performance.md): a new instance loads and answers quickly, and small. */
export const COLD_START_GOALS = { requireMs: 200, rssMb: 60, firstRequestMs: 300 };

function ms(value: number): string {
  return `${(Math.round(value) + 0).toLocaleString("en-US")} ms`;
}

function mb(value: number): string {
  return `${value.toFixed(1)} MB`;
}

function count(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

function line(label: string, range: string, goal: string, verdict: string): void {
  console.log(`  ${label.padEnd(66)} ${range.padEnd(18)} ${goal.padEnd(10)} ${verdict}`);
}

/** Each step of the way to the first answer, in order; indented ones are part of the step above. */
const STEP_LINES: [keyof ColdStartSteps, string][] = [
  ["nodeStart", "Node's start: spawn → the first user code"],
  ["hostLoad", "loading the host, until it listens"],
  ["zodLoad", "  of which zod"],
  ["functionsLoad", "  of which @azure/functions"],
  ["queueSdkLoad", "  of which the queue SDK (the local host's queue trigger only)"],
  ["untilRequest", "listening → the first request taken"],
  ["request", "the request: taken → answer sent"],
  ["cosmosSdkLoad", "  of which loading the Cosmos DB SDK"],
  ["cosmosMetadata", "  of which the SDK's account read (endpoint discovery)"],
  ["cosmosRead", "  of which the point read"],
  ["toDriver", "answer sent → the driver has it"],
];

/** The first answer's steps, each a range over rounds (the parts of one round add up to its total). */
function printSteps(figures: ColdStartFigures): void {
  const steps = figures.firstRequest.values.map((round) => round.steps);
  console.log("    the way there, step by step (each a range over rounds):");
  for (const [key, label] of STEP_LINES) {
    line(
      `    ${label}`,
      formatRange(
        steps.map((round) => round[key]),
        ms,
      ),
      "",
      "",
    );
  }
  // What stays even with nothing of the service's own loaded: Node, the Cosmos DB SDK and the two reads.
  const floor = steps.map(
    (round) => round.nodeStart + round.cosmosSdkLoad + round.cosmosMetadata + round.cosmosRead,
  );
  line("    Node's start + the Cosmos DB SDK's load + both reads", formatRange(floor, ms), "", "");
  console.log("    CPU time of the host (user + system), less noisy than the wall clock on a busy machine:");
  const cpu = (key: "cpu" | "zodLoadCpu" | "cosmosSdkLoadCpu") =>
    formatRange(
      steps.map((round) => round[key]),
      ms,
    );
  line("      from its start to the answer sent", cpu("cpu"), "", "");
  line(
    "      of which loading zod / the Cosmos DB SDK",
    `${cpu("zodLoadCpu")} / ${cpu("cosmosSdkLoadCpu")}`,
    "",
    "",
  );
}

/** How `npm run bench` prints cold start: each figure as a range over rounds, next to its goal. */
export function printColdStart(figures: ColdStartFigures): void {
  const loads = figures.require.values;
  const firsts = figures.firstRequest.values.map((round) => round.firstRequestMs);
  const requireMs = loads.map((round) => round.requireMs);
  const rssMb = loads.map((round) => round.rssMb);
  console.log("");
  line("", "range", "goal", "");
  line(
    "require of every dist/functions/*.js (in the child)",
    formatRange(requireMs, ms),
    `≤ ${COLD_START_GOALS.requireMs} ms`,
    goalVerdict(requireMs, (value) => value <= COLD_START_GOALS.requireMs),
  );
  line(
    "  RSS after it",
    formatRange(rssMb, mb),
    `≤ ${COLD_START_GOALS.rssMb} MB`,
    goalVerdict(rssMb, (value) => value <= COLD_START_GOALS.rssMb),
  );
  line(
    "    of which Node's own (a `node -e` that loads nothing)",
    formatRange(
      figures.nodeFloor.values.map((round) => round.rssMb),
      mb,
    ),
    "",
    "",
  );
  line(
    "  modules loaded (of them zod's)",
    `${formatRange(
      loads.map((round) => round.modules),
      count,
    )} (${formatRange(
      loads.map((round) => round.zodModules),
      count,
    )})`,
    "",
    "",
  );
  line(
    "  process uptime after it (Node's start included)",
    formatRange(
      loads.map((round) => round.uptimeMs),
      ms,
    ),
    "",
    "",
  );
  line(
    "first answer of the local host (its own process), from spawn",
    formatRange(firsts, ms),
    `≤ ${COLD_START_GOALS.firstRequestMs} ms`,
    goalVerdict(firsts, (value) => value <= COLD_START_GOALS.firstRequestMs),
  );
  printSteps(figures);
  line(
    "floor: a `node -e` that loads nothing, from spawn to exit",
    formatRange(
      figures.nodeFloor.values.map((round) => round.ms),
      ms,
    ),
    "",
    "",
  );
  console.log(
    `  route asked: ${figures.route}; ${figures.rounds} rounds, each in fresh processes of Node.js ${figures.nodeVersion}.`,
  );
  console.log(
    "  require: with the settings infra/ deploys (managed identity, Entra ID tokens); first answer: the local host with keys.",
  );
  for (const [label, rounds] of [
    ["require", figures.require],
    ["first request", figures.firstRequest],
    ["node floor", figures.nodeFloor],
  ] as const) {
    for (const error of roundErrors(label, rounds)) console.log(error);
  }
}
