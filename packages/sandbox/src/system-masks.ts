// What of the host's /etc an agent must not read: every file that is not world-readable and every directory
// that is not world-searchable, found by walking /etc when a sandbox is built. A gateway that runs as root
// could read them all (shadow, keys, database passwords in pg_hba.conf, a service's 0600 config), and inside
// the sandbox an agent has the gateway's uid; an ordinary user on the machine could read none of them.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { HookwiseConfigError } from '@hookwise/core';

/** The walk stops with an error beyond this many entries (an /etc this big is not a system's own). */
export const MAX_SCANNED = 20_000;
/** ... or this many paths to mask (each is three bwrap arguments). */
export const MAX_MASKS = 1_000;

export interface Masks {
  files: string[];
  dirs: string[];
}

/**
 * The files under `root` (default /etc) that are not readable by others and the directories not readable
 * and searchable by others (not entered: the whole directory is masked). Symlinks are skipped: their target
 * is judged where it lies. Throws a HookwiseConfigError past MAX_SCANNED entries or MAX_MASKS masks, so that a
 * sandbox never starts with part of /etc unchecked.
 */
export function unreadableByOthers(root = '/etc'): Masks {
  const masks: Masks = { files: [], dirs: [] };
  let scanned = 0;
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue; // gone meanwhile, or unreadable to us: then to the agent too
    }
    for (const name of names) {
      const path = join(dir, name);
      if (++scanned > MAX_SCANNED)
        throw new HookwiseConfigError(
          [`${root} holds more than ${MAX_SCANNED} entries: the sandbox cannot check which are private; set agent.sandbox.mode to off or trim ${root}`],
          'Cannot build the agent sandbox',
        );
      let mode: number;
      let isDir: boolean;
      try {
        const stat = lstatSync(path);
        if (stat.isSymbolicLink()) continue;
        mode = stat.mode;
        isDir = stat.isDirectory();
      } catch {
        continue;
      }
      if (isDir) {
        if ((mode & 0o005) !== 0o005) masks.dirs.push(path);
        else pending.push(path);
      } else if ((mode & 0o004) === 0) masks.files.push(path);
    }
    if (masks.files.length + masks.dirs.length > MAX_MASKS)
      throw new HookwiseConfigError(
        [
          `more than ${MAX_MASKS} files under ${root} are not world-readable: the sandbox cannot mask them all; set agent.sandbox.mode to off or make them fewer`,
        ],
        'Cannot build the agent sandbox',
      );
  }
  return masks;
}
