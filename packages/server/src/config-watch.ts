// config.yaml changed while the gateway runs: it is not reloaded (routes, secrets, limits, plugins and the store
// are fixed at start), so the change is named in the log with what to do, once per change, and on SIGHUP.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { Logger } from 'winston';
import { errorMessage } from '@hookwise/core';
import { loadConfig } from '@hookwise/gateway';

export interface ConfigWatcher {
  /** Says whether config.yaml differs from the one the gateway started with (SIGHUP). */
  check(reason: string): void;
  close(): void;
}

function digest(file: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return undefined;
  }
}

/** mtime, size and inode: what changes when the file is written or replaced; 'missing' when it cannot be read. */
function statOf(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
  } catch {
    return 'missing';
  }
}

/**
 * Watches `file` (by polling its stat, which survives editors that replace the file) and logs one warning per
 * change of its content: the running gateway keeps the configuration it started with, and whether the new file
 * would load. The choice not to reload is documented in docs/security.md (a half-applied config could loosen a
 * secret or a limit without anyone noticing; a restart applies all of it or refuses to start).
 */
export function watchConfigFile(options: {
  file: string;
  configDir: string;
  /** The profile whose config.yaml `file` is (the config dir's own when absent). */
  profile?: string;
  env?: NodeJS.ProcessEnv;
  logger: Logger;
  intervalMs?: number;
}): ConfigWatcher {
  const { file, logger } = options;
  const started = digest(file);
  let lastReported = started;
  const describe = (): string => {
    try {
      loadConfig({ configDir: options.configDir, env: options.env, profile: options.profile });
      return 'the new file loads';
    } catch (err) {
      return `the new file would not load (${errorMessage(err).split('\n')[0]})`;
    }
  };
  const check = (reason: string): void => {
    const now = digest(file);
    if (now === lastReported && reason === 'changed') return;
    lastReported = now;
    if (now === started) {
      if (reason !== 'changed') logger.info(`${reason}: ${file} is the one the gateway started with; nothing to apply`);
      return;
    }
    logger.warn(
      `${reason}: ${file} ${now === undefined ? 'can no longer be read' : 'differs from the one the gateway started with'}; ` +
        `the running gateway keeps the configuration it started with (config.yaml is not reloaded) — restart the gateway to apply it; ${describe()}`,
      { file },
    );
  };
  // Its own timer instead of fs.watchFile: the first stat is taken here, synchronously, so a change made right
  // after the gateway starts is not taken for the starting point.
  let seen = statOf(file);
  const timer = setInterval(() => {
    const now = statOf(file);
    if (now === seen) return;
    seen = now;
    check('changed');
  }, options.intervalMs ?? 2000);
  timer.unref();
  return {
    check,
    close: () => clearInterval(timer),
  };
}
