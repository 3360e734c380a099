// Ends the gateway with the process that started it when that is a package runner. `npx hookwise gateway run`
// and `npm start` run the gateway under `sh -c`, and a SIGTERM to npm stops npm and its shell but not the
// gateway, which would live on as an orphan holding its port. The gateway notices that its parent is gone (it
// is re-parented) and shuts down as on SIGTERM.

/** True when npm, npx, yarn or pnpm started this process (they set these variables for the scripts they run). */
export function startedByPackageRunner(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.npm_lifecycle_event || env.npm_command || env.npm_execpath);
}

/** Calls `onGone` once when this process's parent changes (it died); returns the function that stops watching. */
export function watchParent(onGone: (formerParent: number) => void, intervalMs = 500): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone(parent);
  }, intervalMs);
  // Never what keeps the gateway alive.
  timer.unref();
  return () => clearInterval(timer);
}
