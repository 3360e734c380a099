// Checks of the programs a gateway runs besides itself: the `command` runner's agent CLI and GitHub's `gh`
// (on PATH, `--version` runs, and `gh auth status` when a route comments with it). `gateway run` logs their
// problems as warnings at start, `hookwise doctor` shows them all; without them a missing program shows up only as
// a dead letter at the first event.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { childEnvironment, runProcess } from '@hookwise/kit';
import type { HookwiseConfig, Route } from '@hookwise/gateway';
import { namesOf } from './plugin-manifests';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  /** What was checked, e.g. "agent command" or "gh". */
  check: string;
  status: CheckStatus;
  /** What was found; never a secret. */
  detail: string;
  /** What to do about a warn or fail. */
  fix?: string;
  /** Lines printed as they are below the table (a config file's syntax error with the lines around it). */
  excerpt?: string[];
}

/** The deliverer id of the code host comments, under its real name and its SPEC alias. */
const GH_DELIVERERS = new Set(namesOf('@hookwise/plugin-deliverer-github-comment', 'deliverer', 'github_comment'));
const VERSION_TIMEOUT_MS = 10_000;

/** Where `program` would be found: as a path (relative to `cwd`), or the first executable file on PATH. */
export function locateProgram(program: string, path: string, cwd: string): string | undefined {
  const candidates = program.includes('/')
    ? [isAbsolute(program) ? program : resolve(cwd, program)]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, program));
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      /* not there, or not executable */
    }
  }
  return undefined;
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.trim().slice(0, 120) ?? '';
}

/** Runs `program args` briefly, with the environment a plugin's child would get plus `extraEnv`. */
async function probe(program: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ ok: boolean; text: string }> {
  try {
    const result = await runProcess({ command: program, args, env, cwd, timeoutMs: VERSION_TIMEOUT_MS, killGraceMs: 500, maxOutputBytes: 16 * 1024 });
    const text = firstLine(result.stdout) || firstLine(result.stderr);
    if (result.timedOut) return { ok: false, text: `did not finish within ${VERSION_TIMEOUT_MS / 1000} s` };
    return { ok: result.exitCode === 0, text: result.exitCode === 0 ? text : `exited with ${result.exitSignal ?? result.exitCode}${text ? `: ${text}` : ''}` };
  } catch (err) {
    return { ok: false, text: (err as Error).message };
  }
}

interface AgentBlock {
  runner?: string;
  command?: unknown;
  cwd?: unknown;
}

/** Every `command` runner argv in use: the global agent block and routes that override it. */
function agentCommands(config: HookwiseConfig, routes: readonly Route[]): Array<{ where: string; argv: string[]; cwd?: string }> {
  const found = new Map<string, { where: string; argv: string[]; cwd?: string }>();
  const add = (where: string, block: AgentBlock | undefined) => {
    if (!block || block.runner !== 'command' || !Array.isArray(block.command) || typeof block.command[0] !== 'string') return;
    const argv = block.command as string[];
    const key = argv[0];
    if (!found.has(key)) found.set(key, { where, argv, cwd: typeof block.cwd === 'string' ? block.cwd : undefined });
  };
  add('agent.command', config.agent as AgentBlock);
  for (const route of routes) if (route.agent) add(`route '${route.name}' agent.command`, { runner: config.agent.runner, ...route.agent } as AgentBlock);
  return [...found.values()];
}

/** The agent CLIs of the `command` runner: on PATH and answering `--version`. */
export async function checkAgentCommands(options: {
  config: HookwiseConfig;
  routes: readonly Route[];
  configDir: string;
  env: NodeJS.ProcessEnv;
}): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const { where, argv, cwd } of agentCommands(options.config, options.routes)) {
    const program = argv[0];
    const dir = cwd ? resolve(options.configDir, cwd) : options.configDir;
    const env = childEnvironment(options.env);
    const located = locateProgram(program, env.PATH ?? '', dir);
    const check = `agent command '${program}'`;
    if (!located) {
      results.push({
        check,
        status: 'warn',
        detail: `not found on the gateway's PATH (${where}); every event would fail and end as a dead letter`,
        fix: `install it, or set ${where} to its full path (under systemd: Environment=PATH=... in the unit)`,
      });
      continue;
    }
    const version = await probe(located, ['--version'], env, dir);
    results.push(
      version.ok
        ? { check, status: 'ok', detail: `${located}${version.text ? ` (${version.text})` : ''}` }
        : {
            check,
            status: 'warn',
            detail: `${located} --version ${version.text}`,
            fix: `run \`${program} --version\` as the gateway's user and fix what it reports`,
          },
    );
  }
  return results;
}

/**
 * `gh` when a route comments on pull requests or issues with it: on PATH, `--version`, `gh auth status`. Not when
 * the deliverer posts as a GitHub App (app_id set): it talks to the REST API itself and never runs `gh`.
 */
export async function checkGithubClient(options: {
  config: HookwiseConfig;
  routes: readonly Route[];
  configDir: string;
  env: NodeJS.ProcessEnv;
}): Promise<CheckResult[]> {
  const { config } = options;
  const platforms = config.platforms as Record<string, { enabled?: boolean; cli_path?: unknown; app_id?: unknown } | undefined>;
  const users = options.routes.filter((route) => GH_DELIVERERS.has(route.deliver)).map((route) => route.name);
  const enabled = [...GH_DELIVERERS].some((id) => platforms[id]?.enabled === true);
  if (!users.length && !enabled) return [];
  const key = [...GH_DELIVERERS].find((id) => platforms[id]) ?? 'github_comment';
  const block = platforms[key];
  if (block?.app_id !== undefined && block.app_id !== '') return [];
  const program = typeof block?.cli_path === 'string' && block.cli_path ? block.cli_path : 'gh';
  const check = `GitHub CLI '${program}'`;
  const usedBy = users.length ? `route(s) ${users.join(', ')} comment with it` : `platforms.${key} is enabled`;
  // As the deliverer runs it: GH_TOKEN / GITHUB_TOKEN from the environment or .env are passed on.
  const env = childEnvironment(options.env, { allow: ['GH_TOKEN', 'GITHUB_TOKEN', 'GH_HOST', 'GH_CONFIG_DIR', 'XDG_CONFIG_HOME'] });
  const located = locateProgram(program, env.PATH ?? '', options.configDir);
  if (!located) {
    return [
      {
        check,
        status: 'warn',
        detail: `not found on the gateway's PATH; ${usedBy}, so every such delivery would end as a dead letter`,
        fix: `install it (https://cli.github.com) or set platforms.${key}.cli_path to its full path`,
      },
    ];
  }
  const version = await probe(located, ['--version'], env, options.configDir);
  if (!version.ok)
    return [
      { check, status: 'warn', detail: `${located} --version ${version.text}`, fix: `reinstall it, or set platforms.${key}.cli_path to a working client` },
    ];
  const results: CheckResult[] = [{ check, status: 'ok', detail: `${located}${version.text ? ` (${version.text})` : ''}; ${usedBy}` }];
  const auth = await probe(located, ['auth', 'status'], env, options.configDir);
  results.push(
    auth.ok
      ? { check, status: 'ok', detail: 'logged in (gh auth status)' }
      : {
          check,
          status: 'warn',
          detail: `not logged in: \`${program} auth status\` ${auth.text}`,
          fix: `run \`${program} auth login\` as the gateway's user, or set GH_TOKEN in ${join(options.configDir, '.env')}`,
        },
  );
  return results;
}

/** A check's problem as one log line: what, and what to do. */
export function warningLine(result: CheckResult): string {
  return `${result.check}: ${result.detail}${result.fix ? `: ${result.fix}` : ''}`;
}
