// Changes to webhook_subscriptions.json: read-modify-write under a file lock, written atomically with mode 0600,
// so that concurrent `hookwise webhook subscribe` processes lose no entry and readers never see half a file.
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { HookwiseError, errorMessage } from '@hookwise/core';
import { readSubscriptions, subscriptionsPath, type SubscriptionEntries } from './subscriptions';

/** Writes `text` to a temp file in the same directory, then renames it over `file` (atomic on POSIX). */
export function writeFileAtomic(file: string, text: string, mode = 0o600): void {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fd = openSync(tmp, 'w', mode);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // The umask may have narrowed or (with an odd umask) not applied the mode; secrets live here, so be exact.
    chmodSync(tmp, mode);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

// Ten processes starting at once on a busy machine must all get their turn: the lock is held for a few
// milliseconds only, so waiting up to about a minute with jittered backoff is cheap and never loses a write.
const LOCK_OPTIONS = {
  realpath: false,
  stale: 10_000,
  retries: { retries: 120, factor: 1.3, minTimeout: 20, maxTimeout: 500, randomize: true },
};

/**
 * Runs `change` on the current entries while holding the lock and writes the result. When `change` throws,
 * nothing is written. A file that does not parse is reported, never overwritten.
 */
export async function updateSubscriptions<T>(configDir: string, change: (entries: SubscriptionEntries) => T | Promise<T>): Promise<T> {
  const file = subscriptionsPath(configDir);
  mkdirSync(configDir, { recursive: true });
  // Required here: only code that changes the file pays for loading proper-lockfile.
  const { lock } = require('proper-lockfile') as typeof import('proper-lockfile');
  let release: () => Promise<void>;
  try {
    release = await lock(file, LOCK_OPTIONS);
  } catch (err) {
    throw new HookwiseError(
      'HW_E_SUBSCRIPTIONS',
      `could not lock ${file} (${errorMessage(err)}): another hookwise command may be stuck; if none is running, delete ${file}.lock`,
      { cause: err },
    );
  }
  try {
    const entries = readSubscriptions(configDir);
    const result = await change(entries);
    writeFileAtomic(file, `${JSON.stringify(entries, null, 2)}\n`);
    return result;
  } finally {
    await release().catch(() => undefined);
  }
}
