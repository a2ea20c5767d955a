import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { deflateRawSync } from "node:zlib";
import { projectRoot } from "../dev/local-paths";
import { measureNodeFloor, runChild, startBackingServices } from "./backing-services";
import type { WorkerReport, WorkerStep } from "./functions-worker-main";
import { formatRange, goalVerdict, type Rounds, roundErrors, runRounds } from "./rounds";

/**
 * The deployment package (infra/scripts/stage-package.js) as a new instance meets it: its size, then
 * in fresh processes of the Node.js running the bench, the entry points loaded as the Functions
 * worker loads them (bench/functions-worker-main.js, spawn to exit), and the first answer of a GET
 * that reads Cosmos DB. Side by side, the same for the unbundled build (dist/functions/*.js with the
 * repository's node_modules), and the floor: a `node -e` that loads nothing, spawn to exit.
 */
export const PACKAGE_GOALS = { zippedMb: 10, loadToFloor: 1.5 };

export interface PackageSize {
  files: number;
  unpackedMb: number;
  /** Each file deflated as a zip stores it, summed (the zip's headers add a few bytes a file). */
  zippedMb: number;
}

interface LoadRound {
  floorMs: number;
  bundledMs: number;
  unbundledMs: number;
  /** Inside the worker stand-in: performance.now() around the requires, bundled and not. */
  bundledRequireMs: number;
  unbundledRequireMs: number;
}

interface FirstAnswerRound {
  bundledMs: number;
  unbundledMs: number;
}

export interface PackageFigures {
  size: PackageSize;
  bundled: string[];
  loads: Rounds<LoadRound>;
  firstAnswers: Rounds<FirstAnswerRound>;
  nodeVersion: string;
}

/** Every file of a staged package, relative to it, with `/` between folders. */
export function packageFiles(stage: string): string[] {
  return readdirSync(stage, { recursive: true, encoding: "utf8" })
    .filter((file) => statSync(path.join(stage, file)).isFile())
    .map((file) => file.split(path.sep).join("/"));
}

export function packageSize(stage: string): PackageSize {
  const files = packageFiles(stage).map((file) => path.join(stage, file));
  const bytes = (sizes: number[]) => sizes.reduce((sum, size) => sum + size, 0) / 1048576;
  return {
    files: files.length,
    unpackedMb: bytes(files.map((file) => statSync(file).size)),
    zippedMb: bytes(files.map((file) => deflateRawSync(readFileSync(file)).length)),
  };
}

/** The worker stand-in on `root` with `steps`, spawn to exit: the wall time and its report. */
export async function runWorker(root: string, env: NodeJS.ProcessEnv, steps: WorkerStep[] = []) {
  const worker = path.join(projectRoot(), "dist", "bench", "functions-worker-main.js");
  const start = performance.now();
  const stdout = await runChild([worker, root, JSON.stringify(steps)], env);
  return { ms: performance.now() - start, report: JSON.parse(stdout) as WorkerReport };
}

const PROBE = {
  http: {
    name: "authenticationProfiles-get",
    method: "GET",
    url: "http://127.0.0.1/authenticationProfiles/cold-start-probe",
    params: { authenticationProfileName: "cold-start-probe" },
  },
};

export async function benchDeploymentPackage(rounds: number): Promise<PackageFigures> {
  const { stagePackage } = require(path.join(projectRoot(), "infra", "scripts", "stage-package.js")) as {
    stagePackage(options: { stage: string; quiet: boolean }): Promise<{ bundled: string[] }>;
  };
  const stage = path.join(mkdtempSync(path.join(tmpdir(), "bench-package-")), "package");
  const backing = await startBackingServices();
  try {
    const { bundled } = await stagePackage({ stage, quiet: true });
    const { APPLICATIONINSIGHTS_CONNECTION_STRING: _off, ...inherited } = process.env;
    const env = { ...inherited, ...backing.settings };
    const root = projectRoot();
    const loads = await runRounds(rounds, async () => {
      const floor = await measureNodeFloor();
      const bundledRun = await runWorker(stage, env);
      const unbundledRun = await runWorker(root, env);
      return {
        floorMs: floor.ms,
        bundledMs: bundledRun.ms,
        unbundledMs: unbundledRun.ms,
        bundledRequireMs: bundledRun.report.loadMs,
        unbundledRequireMs: unbundledRun.report.loadMs,
      };
    });
    // One unmeasured answer first: the Cosmos server's first request (and the disk cache) is not ours.
    await runWorker(stage, env, [PROBE]).catch(() => undefined);
    const firstAnswers = await runRounds(rounds, async () => {
      const answer = async (at: string) => {
        const { ms, report } = await runWorker(at, env, [PROBE]);
        const status = report.steps[0]?.http?.status;
        if (status !== 404) throw new Error(`the probe answered ${status}, not 404`);
        return ms;
      };
      return { bundledMs: await answer(stage), unbundledMs: await answer(root) };
    });
    return { size: packageSize(stage), bundled, loads, firstAnswers, nodeVersion: process.version };
  } finally {
    await backing.stop();
    rmSync(path.dirname(stage), { recursive: true, force: true });
  }
}

function ms(value: number): string {
  return `${Math.round(value).toLocaleString("en-US")} ms`;
}

function line(label: string, range: string, goal = "", verdict = ""): void {
  console.log(`  ${label.padEnd(66)} ${range.padEnd(18)} ${goal.padEnd(10)} ${verdict}`);
}

export function printDeploymentPackage(figures: PackageFigures): void {
  const { size, loads, firstAnswers } = figures;
  const values = loads.values;
  const ratios = values.map((round) => round.bundledMs / round.floorMs);
  console.log("");
  line("", "range", "goal", "");
  line(
    `zipped (${size.files} files, ${size.unpackedMb.toFixed(1)} MB unpacked)`,
    `${size.zippedMb.toFixed(1)} MB`,
    `≤ ${PACKAGE_GOALS.zippedMb} MB`,
    goalVerdict([size.zippedMb], (value) => value <= PACKAGE_GOALS.zippedMb, "measurements"),
  );
  line(
    "load of the entry points from the package, spawn to exit ÷ floor",
    formatRange(ratios, (value) => `${value.toFixed(2)} ×`),
    `≤ ${PACKAGE_GOALS.loadToFloor} ×`,
    goalVerdict(ratios, (value) => value <= PACKAGE_GOALS.loadToFloor),
  );
  const msRange = <R>(rounds: R[], figure: (round: R) => number) => formatRange(rounds.map(figure), ms);
  line(
    "  the package's load, spawn to exit",
    msRange(values, (round) => round.bundledMs),
  );
  line(
    "    of which the requires",
    msRange(values, (round) => round.bundledRequireMs),
  );
  line(
    "  the unbundled build's (dist/functions/*.js)",
    msRange(values, (round) => round.unbundledMs),
  );
  line(
    "    of which the requires",
    msRange(values, (round) => round.unbundledRequireMs),
  );
  line(
    "  floor: a `node -e` that loads nothing, spawn to exit",
    msRange(values, (round) => round.floorMs),
  );
  line(
    "first answer (GET, a Cosmos DB point read), spawn to exit: package",
    msRange(firstAnswers.values, (round) => round.bundledMs),
  );
  line(
    "  the unbundled build's",
    msRange(firstAnswers.values, (round) => round.unbundledMs),
  );
  console.log(
    `  ${loads.values.length} rounds, each in fresh processes of Node.js ${figures.nodeVersion} (npm run bench:node22 for the Node.js infra/ deploys); bundled on first use: ${figures.bundled.join(", ")}.`,
  );
  for (const [label, rounds] of [
    ["load", loads],
    ["first answer", firstAnswers],
  ] as const) {
    for (const error of roundErrors(label, rounds)) console.log(error);
  }
}
