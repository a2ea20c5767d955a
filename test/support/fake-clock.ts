/**
 * Jest's fake timers, AbortSignal.timeout's included (@sinonjs/fake-timers leaves that one on the
 * real clock): a timer fires when the test moves the clock, never because the machine was slow
 * to get to the next line. setImmediate, nextTick and microtasks stay real, so a test can still
 * let work that waits on no timer settle. Returns the function that puts the real clock back.
 */
export function useFakeClock(): () => void {
  jest.useFakeTimers({ doNotFake: ["setImmediate", "nextTick", "queueMicrotask"] });
  const timeout = jest.spyOn(AbortSignal, "timeout").mockImplementation((ms: number) => {
    const controller = new AbortController();
    setTimeout(
      () => controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
      ms,
    );
    return controller.signal;
  });
  return () => {
    timeout.mockRestore();
    jest.useRealTimers();
  };
}
