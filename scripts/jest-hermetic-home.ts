// Keeps the developer's Hookwise setup out of the test run: every test process (and every process a test starts
// without an environment of its own) gets an empty home directory and no HOOKWISE_HOME, so nothing under test can
// read ~/.hookwise, a HOOKWISE_HOME set in the shell, or the home directory's other files.
import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Changes this (jest's main) process's environment before any test process starts, so they inherit it. The npm
 * user config stays the developer's (npm reads `npm_config_userconfig` before `~/.npmrc`): it says how to build
 * native modules here, and tests that install packages need that, not Hookwise's settings.
 */
export function isolateHome(): string {
  process.env.npm_config_userconfig ??= join(homedir(), '.npmrc');
  delete process.env.HOOKWISE_HOME;
  const home = mkdtempSync(join(tmpdir(), 'hookwise-jest-home-'));
  process.env.HOME = home;
  process.once('exit', () => rmSync(home, { recursive: true, force: true }));
  return home;
}
