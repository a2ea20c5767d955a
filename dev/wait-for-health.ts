import { StartupError } from "./startup-error";

/** Polls GET /health until it answers 200: every dependency of the host answers too. */
export async function waitForHealthy(baseUrl: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastAnswer = "no answer";
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(10_000) });
      if (response.status === 200) return;
      lastAnswer = `${response.status} ${await response.text()}`;
    } catch (error) {
      lastAnswer = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new StartupError(
    `The Functions host did not answer GET /health with 200 within ${timeoutMs / 1000} s (last answer: ${lastAnswer}).`,
  );
}
