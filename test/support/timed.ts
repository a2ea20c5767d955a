/** How long `work` took to settle, and how: the error it failed with, or undefined. */
export async function timed(work: Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const started = performance.now();
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown ?? new Error("rejected without a reason"),
  );
  return { ms: performance.now() - started, error };
}
