// A CLI that logs in with a subscription instead of an API key: Claude Code's `claude login` (a Claude plan's OAuth
// token in ~/.claude/.credentials.json) or Codex's ChatGPT login (~/.codex/auth.json). The gateway cannot keep such
// a login out of the run the way the model proxy keeps an API key out: the CLI sends the token to the provider
// itself and refreshes it itself. With `login_from` set, each run gets a copy of only that one file, made afresh
// from the operator's home before the run, inside the route's private home, bound read-only into the sandbox: the
// CLI can read it, no process of the run can change it or the operator's file, and nothing else of the operator's
// home is shown. A token the CLI refreshes during a run is not kept: the next run copies the operator's file again.
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { HookwiseError } from '@hookwise/core';
import type { PresetName } from './preset-name';

export interface PresetLogin {
  /** The login file, relative to the home it is kept in. */
  file: string;
  /** Hosts the login calls besides the API's (the provider's backend for a subscription, its token refresh). */
  network: readonly string[];
  /** How the operator makes the file. */
  howTo: string;
}

/** The presets whose CLI can log in with a subscription, and where that login lives (found in the CLIs' binaries). */
export const PRESET_LOGINS: Readonly<Partial<Record<PresetName, PresetLogin>>> = {
  claude: { file: join('.claude', '.credentials.json'), network: ['platform.claude.com'], howTo: 'run `claude` and log in with /login' },
  codex: { file: join('.codex', 'auth.json'), network: ['chatgpt.com', 'auth.openai.com'], howTo: 'run `codex login` and sign in with ChatGPT' },
};

/**
 * The home `login_from` names: an absolute path, or `~` / `~/...` for the gateway user's HOME. Throws a config error
 * for a preset without a subscription login or a path that cannot be resolved.
 */
export function loginHome(preset: PresetName | undefined, loginFrom: string, env: NodeJS.ProcessEnv): string {
  if (!preset || !PRESET_LOGINS[preset]) {
    throw new HookwiseError(
      'HW_E_CONFIG',
      `agent.login_from is for the presets whose CLI logs in with a subscription (${Object.keys(PRESET_LOGINS).join(', ')}), not ${preset ? `preset '${preset}'` : 'a plain command'}: leave it out and pass the CLI's key with env:`,
    );
  }
  if (loginFrom === '~' || loginFrom.startsWith('~/')) {
    if (!env.HOME)
      throw new HookwiseError(
        'HW_E_CONFIG',
        `agent.login_from '${loginFrom}': the gateway's environment has no HOME to expand '~' with; write the absolute path`,
      );
    return resolve(env.HOME, loginFrom.slice(2));
  }
  if (!isAbsolute(loginFrom))
    throw new HookwiseError(
      'HW_E_CONFIG',
      `agent.login_from '${loginFrom}' is not an absolute path: write the home the CLI logged in from, e.g. /home/me or ~`,
    );
  return resolve(loginFrom);
}

/**
 * Copies the operator's login file into the run's private home (0400, replacing the last run's copy) and returns
 * the copy's path. Throws, not retryable, when the operator's file is missing.
 */
export function copyLogin(preset: PresetName, from: string, home: string): string {
  const login = PRESET_LOGINS[preset]!;
  const source = join(from, login.file);
  const copy = join(home, login.file);
  if (!existsSync(source)) {
    throw new HookwiseError(
      'HW_E_AGENT',
      `agent.login_from: ${source} does not exist: ${login.howTo} on this machine as the gateway's user, or set the CLI's API key in the gateway's environment instead`,
      {
        retryable: false,
      },
    );
  }
  mkdirSync(dirname(copy), { recursive: true, mode: 0o700 });
  rmSync(copy, { force: true });
  copyFileSync(source, copy);
  chmodSync(copy, 0o400);
  return copy;
}

/** Removes the run's copy (a run the model proxy serves needs no login). */
export function dropLogin(preset: PresetName, home: string): void {
  const login = PRESET_LOGINS[preset];
  if (login) rmSync(join(home, login.file), { force: true });
}
