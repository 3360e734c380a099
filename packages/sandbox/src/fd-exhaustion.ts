// File-descriptor exhaustion: EMFILE (the process's limit) or ENFILE (the system's). A spawn or connect that hits
// it fails now and works once other runs have closed theirs, so a run that failed on it is retried, never dead-
// lettered as if the agent were broken. Found anywhere in an error's `cause` chain (runners wrap what they throw).
export type FdExhaustionCode = 'EMFILE' | 'ENFILE';

const CODES: readonly string[] = ['EMFILE', 'ENFILE'];

/** EMFILE or ENFILE when `err` (or an error it wraps) is file-descriptor exhaustion, else undefined. */
export function fdExhaustionOf(err: unknown, depth = 0): FdExhaustionCode | undefined {
  if (typeof err !== 'object' || err === null || depth > 8) return undefined;
  const { code, cause, errors } = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && CODES.includes(code)) return code as FdExhaustionCode;
  if (Array.isArray(errors))
    for (const inner of errors) {
      const found = fdExhaustionOf(inner, depth + 1);
      if (found) return found;
    }
  return fdExhaustionOf(cause, depth + 1);
}

/** What to tell the operator about it: what happened and what to do. */
export function fdExhaustionAdvice(code: FdExhaustionCode): string {
  return code === 'EMFILE'
    ? "the gateway ran out of file descriptors (EMFILE: its open-file limit); it is retried. Raise the limit (`ulimit -n`, systemd's LimitNOFILE) or lower `agent.concurrency`"
    : 'the system ran out of file descriptors (ENFILE); it is retried. Raise fs.file-max or find the process holding them';
}
