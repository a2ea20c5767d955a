import type { startStack } from "../../dev/stack";

/** Stops what global setup started and removes its temporary folder. */
export default async function globalTeardown(): Promise<void> {
  const stack = (globalThis as Record<string, unknown>).__stack as
    | Awaited<ReturnType<typeof startStack>>
    | undefined;
  const outcomes = (await stack?.stop()) ?? [];
  for (const outcome of outcomes.filter(({ clean }) => !clean)) {
    console.error(`global teardown: ${outcome.name} ${outcome.description}.`);
  }
}
