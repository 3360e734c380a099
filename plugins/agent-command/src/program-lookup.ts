// Finding an agent's program as a user's shell would: PATH first, then the prefixes npm, pipx and nvm install
// user-level CLIs into (a gateway started by systemd or docker often has none of them on PATH), and a relative path
// against the config dir. What a found program needs to run inside the sandbox (its directory, its npm package
// with the native binaries npm put beside it) is bound read-only.
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { execFile } from 'node:child_process';
import type { AgentProgramCheck } from '@hookwise/core';

/** The directories searched after PATH, in order; each only where its variable or home is known. */
export function userPrefixDirs(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME;
  const npmPrefix = env.npm_config_prefix ?? env.NPM_CONFIG_PREFIX;
  return [
    npmPrefix && join(npmPrefix, 'bin'),
    env.NVM_BIN,
    home && join(home, '.local', 'bin'),
    home && join(home, '.npm-global', 'bin'),
    home && join(home, '.npm', 'bin'),
    // npm's default global prefix is the running node's own: `npm install -g` next to this node (nvm, /usr/local).
    dirname(process.execPath),
  ].filter((d): d is string => Boolean(d));
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The absolute path `program` runs as, or undefined: a name on PATH or a user prefix, a path from the config dir. */
export function findProgram(program: string, env: NodeJS.ProcessEnv, configDir: string): string | undefined {
  if (program.includes('/')) {
    const file = isAbsolute(program) ? program : resolve(configDir, program);
    return isExecutableFile(file) ? file : undefined;
  }
  const dirs = [...(env.PATH ?? '').split(delimiter), ...userPrefixDirs(env)];
  for (const dir of dirs) {
    if (dir && isAbsolute(dir) && isExecutableFile(join(dir, program))) return join(dir, program);
  }
  return undefined;
}

/**
 * The host paths a found program needs to run inside the sandbox: its directory (a link such as ~/.local/bin/claude
 * is followed there) and, for an npm-installed CLI, the node_modules it lives in: Codex's launcher starts a native
 * binary from a sibling package (@openai/codex-linux-x64), Claude Code's from its own.
 */
export function programBindings(file: string): string[] {
  const paths = new Set([dirname(file)]);
  let real = file;
  try {
    real = realpathSync(file);
  } catch {
    /* a dangling link: the directory is all there is */
  }
  paths.add(nodeModulesOf(real) ?? dirname(real));
  return [...paths];
}

/** `.../node_modules` holding a file inside a package (`.../node_modules/@scope/cli/bin/x.js`), or undefined. */
function nodeModulesOf(file: string): string | undefined {
  const parts = file.split(sep);
  const at = parts.lastIndexOf('node_modules');
  return at > 0 ? parts.slice(0, at + 1).join(sep) : undefined;
}

/** The first line `<file> --version` prints within a few seconds, or undefined. */
export function programVersion(file: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  return new Promise((done) => {
    execFile(file, ['--version'], { env, timeout: 10_000, maxBuffer: 64 * 1024 }, (err, stdout) => {
      const line = String(stdout ?? '')
        .split('\n')
        .find((l) => l.trim());
      done(err && !line ? undefined : line?.trim().slice(0, 200));
    });
  });
}

/** The check of one program: where it is and its version, or what is missing and the command that installs it. */
export async function checkProgram(program: string, env: NodeJS.ProcessEnv, configDir: string, install: string | undefined): Promise<AgentProgramCheck> {
  const path = findProgram(program, env, configDir);
  if (!path) {
    const where = program.includes('/')
      ? `'${program}' is not an executable file${isAbsolute(program) ? '' : ` (relative to the config dir ${configDir})`}`
      : `'${program}' is not on PATH nor in ${userPrefixDirs(env).join(', ')}`;
    const fix = install ? `install it (${install}) or set agent.command to its absolute path` : 'install it, or set agent.command to its absolute path';
    return { program, problem: `the agent program ${where}; ${fix}` };
  }
  const version = await programVersion(path, { ...env, PATH: [env.PATH, dirname(path)].filter(Boolean).join(delimiter) });
  return { program, path, ...(version && { version }) };
}
