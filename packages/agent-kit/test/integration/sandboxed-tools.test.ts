// The terminal tool and a stdio MCP server inside a run's sandbox (issue 29, real bubblewrap and real processes),
// and terminal.allow as whole commands: the prefix and --output= cases of the issue no longer pass.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { AgentSandbox } from '@hookwise/core';
import { openSandboxRun, probeSandbox, resolveSandboxPolicy, type SandboxRun } from '@hookwise/sandbox';
import { createLogger, Redactor } from '@hookwise/gateway';
import { refusal, runTerminalCommand } from '@hookwise/agent-kit';
import { terminalSettings } from '../../src/terminal-tool';
import { McpServers } from '../../src/mcp-client';
import { allowProblems } from '../../src/terminal-allow';

const FILESYSTEM_SERVER = join(require.resolve('@modelcontextprotocol/server-filesystem/package.json'), '..', 'dist', 'index.js');
// The server's dependencies: the repository's node_modules, made readable inside the sandbox.
const NODE_MODULES = join(dirname(FILESYSTEM_SERVER), '..', '..', '..');

let configDir: string;
let run: SandboxRun | undefined;
let cleanups: Array<() => Promise<void> | void>;

beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'hw-sandboxed-tools-config-'));
  writeFileSync(join(configDir, '.env'), 'WEBHOOK_SECRET=tools-config-secret-0123456789\n');
  writeFileSync(join(configDir, 'webhook_subscriptions.json'), '{}\n');
  cleanups = [];
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await run?.close();
  run = undefined;
  rmSync(configDir, { recursive: true, force: true });
});

/** The run's sandbox as the gateway hands it to a runner (mode auto: bubblewrap where this machine has it). */
async function sandbox(readOnly: string[] = []): Promise<AgentSandbox> {
  run = await openSandboxRun({ decision: resolveSandboxPolicy('auto', await probeSandbox()), label: 'tools test', readOnly, hidden: [configDir] });
  const r = run;
  return {
    mode: 'auto',
    sandboxed: r.sandboxed,
    reason: r.decision.reason,
    workDir: r.workDir,
    plan: r.plan,
    spawn: r.spawn,
    onClose: (cleanup) => cleanups.push(cleanup),
  };
}

const env = { PATH: process.env.PATH };
const terminal = (command: string, box: AgentSandbox, allow?: string[]) =>
  runTerminalCommand(command, { env, timeoutMs: 10_000, maxOutputBytes: 4096, allow, signal: new AbortController().signal, sandbox: box });

describe('terminal.allow: whole commands', () => {
  const work = '/srv/work';
  it('an allowed `cat README.md` no longer lets `cat README.md .env` through', () => {
    expect(refusal('cat README.md', ['cat README.md'], work)).toBeUndefined();
    expect(refusal('cat README.md .env', ['cat README.md'], work)).toMatch(/matches none of terminal.allow/);
    expect(refusal('cat README.md', ['cat *'], work)).toBeUndefined();
    expect(refusal('cat README.md .env', ['cat *'], work)).toMatch(/matches none/);
    expect(refusal('git log --oneline -5', ['git log **'], work)).toBeUndefined();
    expect(refusal('git log', ['git log **'], work)).toBeUndefined();
  });

  it('refuses `git log --output=<config_dir>/webhook_subscriptions.json` and other paths out of the work dir', () => {
    expect(refusal('git log --output=/home/me/.hookwise/webhook_subscriptions.json', ['git log **'], work)).toMatch(/names a path outside the work directory/);
    expect(refusal('cat ../../etc/passwd', ['cat *'], work)).toMatch(/outside the work directory/);
    expect(refusal('cat /etc/passwd', ['cat *'], work)).toMatch(/outside the work directory/);
    expect(refusal('cat docs/a.md', ['cat *'], work)).toBeUndefined();
  });

  it('refuses operators, quotes, globs and substitutions; malformed entries are config errors', () => {
    for (const command of ['cat a; cat .env', "cat 'a b'", 'cat *.env', 'cat $HOME/x', 'cat ~/.env', 'cat a|tee b'])
      expect(refusal(command, ['cat **'], work)).toMatch(/is not a plain word/);
    expect(allowProblems(['git log *', 'ls', 'npm test **'])).toEqual([]);
    expect(allowProblems(['cat ; rm', '* foo', 'git ** log'])).toHaveLength(3);
  });
});

describe('terminal.allow resolves paths before it decides', () => {
  let work: string;
  let outside: string;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'hw-allow-work-'));
    outside = mkdtempSync(join(tmpdir(), 'hw-allow-outside-'));
  });
  afterEach(() => {
    rmSync(work, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('refuses `sort -o/outside/file`, `--output=/x` and `-xo/x`: an option value attached to its option is a path too', () => {
    writeFileSync(join(work, 'list.txt'), 'b\na\n');
    const target = join(outside, 'sorted.txt');
    expect(refusal(`sort -o${target} list.txt`, ['sort **'], work)).toMatch(/names a path outside the work directory/);
    expect(refusal(`sort --output=${target} list.txt`, ['sort **'], work)).toMatch(/outside the work directory/);
    expect(refusal(`sort -ro${target} list.txt`, ['sort **'], work)).toMatch(/outside the work directory/);
    expect(refusal('sort -o../sorted.txt list.txt', ['sort **'], work)).toMatch(/outside the work directory/);
    expect(refusal('sort -osorted.txt list.txt', ['sort **'], work)).toBeUndefined();
    expect(refusal('sort -r -n list.txt', ['sort **'], work)).toBeUndefined();
  });

  it('refuses a symlink in the work dir that leads outside it (to .env), also as a dangling link or through `link/..`', () => {
    writeFileSync(join(configDir, 'notes'), 'x\n');
    symlinkSync(join(configDir, '.env'), join(work, 'notes.md'));
    symlinkSync(configDir, join(work, 'docs'));
    symlinkSync(join(outside, 'not-yet'), join(work, 'out.txt'));
    mkdirSync(join(work, 'real'));
    writeFileSync(join(work, 'real', 'a.md'), 'a\n');
    expect(refusal('cat notes.md', ['cat *'], work)).toMatch(/"notes.md" names a path outside the work directory/);
    expect(refusal('cat docs/notes', ['cat *'], work)).toMatch(/outside the work directory/);
    expect(refusal('cat docs/../README.md', ['cat *'], work)).toMatch(/outside the work directory/);
    expect(refusal('sort -o out.txt real/a.md', ['sort **'], work)).toMatch(/"out.txt" names a path outside/);
    expect(refusal('sort -oout.txt real/a.md', ['sort **'], work)).toMatch(/outside the work directory/);
    expect(refusal('cat real/a.md', ['cat *'], work)).toBeUndefined();
    expect(refusal('cat real/../real/new.md', ['cat *'], work)).toBeUndefined();
  });

  it('with the sandbox off, an allowed `cat <link to .env>` and `sort -o/outside/file` are refused before anything runs', async () => {
    run = await openSandboxRun({ decision: resolveSandboxPolicy('off', await probeSandbox()), label: 'allow test', workDir: work, hidden: [configDir] });
    const r = run;
    const box: AgentSandbox = {
      mode: 'off',
      sandboxed: false,
      reason: r.decision.reason,
      workDir: r.workDir,
      plan: r.plan,
      spawn: r.spawn,
      onClose: () => undefined,
    };
    symlinkSync(join(configDir, '.env'), join(work, 'notes.md'));
    writeFileSync(join(work, 'list.txt'), 'b\na\n');
    const read = await terminal('cat notes.md', box, ['cat *']);
    expect(read).toMatch(/^refused: "notes.md" names a path outside the work directory/);
    expect(read).not.toContain('tools-config-secret-0123456789');
    const target = join(outside, 'sorted.txt');
    expect(await terminal(`sort -o${target} list.txt`, box, ['sort **'])).toMatch(/^refused: /);
    expect(existsSync(target)).toBe(false);
    // What stays inside still runs.
    expect(await terminal('sort -osorted.txt list.txt', box, ['sort **'])).toMatch(/^exit code: 0/);
    expect(readFileSync(join(work, 'sorted.txt'), 'utf8')).toBe('a\nb\n');
  });
});

describe('terminal settings', () => {
  it('refuse a terminal.cwd in the config dir and a malformed allow entry, naming the fix', () => {
    const base = { timeout_seconds: 10, max_output_bytes: 100, env: [] };
    expect(() => terminalSettings({ ...base, cwd: 'work' }, { configDir, env }, [])).toThrow(/terminal.cwd 'work' is in the config dir/);
    expect(() => terminalSettings({ ...base, allow: ['cat; rm'] }, { configDir, env }, [])).toThrow(/terminal.allow: "cat; rm"/);
    expect(terminalSettings(base, { configDir, env }, []).cwd).toBeUndefined();
  });
});

describe('tools in the sandbox', () => {
  it('a terminal command cannot read the config dir, runs in the work dir, and can write there', async () => {
    const probe = await probeSandbox();
    if (!probe.available) return console.warn(`skipped: ${probe.reason}`);
    const box = await sandbox();
    const out = await terminal(`pwd; cat ${configDir}/.env; echo made > note.txt`, box);
    expect(out).toContain(box.workDir);
    expect(out).not.toContain('tools-config-secret-0123456789');
    expect(readFileSync(join(box.workDir, 'note.txt'), 'utf8')).toBe('made\n');
  });

  it('the allowlisted `git log --output=<config_dir>/...` is refused before anything runs', async () => {
    const box = await sandbox();
    const target = join(configDir, 'webhook_subscriptions.json');
    const out = await terminal(`git log --output=${target}`, box, ['git log **']);
    expect(out).toMatch(/^refused: .* names a path outside the work directory/);
    expect(readFileSync(target, 'utf8')).toBe('{}\n');
  });

  it('a stdio MCP server (the reference filesystem server) works sandboxed for the run and ends with it', async () => {
    const probe = await probeSandbox();
    if (!probe.available) return console.warn(`skipped: ${probe.reason}`);
    const box = await sandbox([NODE_MODULES]);
    writeFileSync(join(box.workDir, 'hello.txt'), 'hello from the work dir');
    const logs = new PassThrough();
    const redactor = new Redactor();
    const servers = new McpServers([{ name: 'fs', command: process.execPath, args: [FILESYSTEM_SERVER, box.workDir], timeout_seconds: 20 } as never], {
      logger: createLogger({ stream: logs, redactor }),
      configDir,
      redact: (s) => redactor.add(s),
    });
    const tools = await servers.tools(new AbortController().signal, box);
    const read = tools.find((t) => t.definition.name === 'fs__read_text_file' || t.definition.name === 'fs__read_file')!;
    expect(read).toBeDefined();
    const inside = await read.run({ path: join(box.workDir, 'hello.txt') }, new AbortController().signal);
    expect(inside.content).toContain('hello from the work dir');
    const secret = await read.run({ path: join(configDir, '.env') }, new AbortController().signal);
    expect(secret.content).not.toContain('tools-config-secret-0123456789');
    expect(cleanups).toHaveLength(1);
    await cleanups.splice(0)[0]();
    expect(existsSync(box.workDir)).toBe(true);
  }, 30_000);
});
