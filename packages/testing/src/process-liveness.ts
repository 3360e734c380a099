// Whether a process still runs, for tests that prove children die with their parent (the process reaper).
import { readFileSync } from 'node:fs';

/**
 * Alive and not a zombie. A child whose parent was killed is re-parented to an init that may reap it late (or,
 * in a container, never), so a zombie counts as gone; without /proc (macOS) kill(pid, 0) decides alone.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true;
  }
}
