/**
 * Calls `onGone` once this process's parent has exited. `npm start` runs the launcher under
 * `sh -c`: `kill -TERM <npm pid>` ends npm and the shell but never reaches the launcher, which
 * would keep the whole stack running with no one to stop it. A re-parented process has a new ppid.
 */
export function watchParent(onGone: () => void, intervalMs = 1000): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
}
