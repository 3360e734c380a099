// The environment of a gateway or CLI a test starts (as a child process or in-process): built here instead of
// inherited whole, so that the developer's Hookwise settings (HOOKWISE_HOME, WEBHOOK_*, a job channel) and home
// directory never reach the code under test, whatever the shell that ran jest had set.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Hookwise's own settings and the webhook adapter's: never inherited, only given on purpose. */
const NOT_INHERITED = /^(HOOKWISE_|WEBHOOK_)/;

let ownHome: string | undefined;

/** An empty home directory of this test process, for code that reads `~` (made on first use, removed at exit). */
export function emptyHome(): string {
  if (ownHome === undefined) {
    const home = mkdtempSync(join(tmpdir(), 'hookwise-test-home-'));
    process.once('exit', () => rmSync(home, { recursive: true, force: true }));
    ownHome = home;
  }
  return ownHome;
}

/**
 * This process's environment without any HOOKWISE_* or WEBHOOK_* variable, with HOME an empty directory of the
 * test's and HOOKWISE_HOME the test's config dir (when given); `extra` is set last.
 */
export function testProcessEnv(configDir?: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!NOT_INHERITED.test(name)) env[name] = value;
  env.HOME = emptyHome();
  if (configDir !== undefined) env.HOOKWISE_HOME = configDir;
  return Object.assign(env, extra);
}
