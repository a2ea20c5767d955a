/** Runs `action` and returns what it threw; fails the test when it throws nothing. */
export function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error("expected the action to throw");
}
