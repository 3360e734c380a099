// The command runner against real child processes: node scripts written into a temp dir.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createLogger, PluginRegistry, Redactor } from '@hookwise/gateway';
import { formatSkills } from '@hookwise/agent-kit';
import { type AgentTask, type PluginContext } from '@hookwise/core';
import plugin, { createCommandRunner, SKILLS_SEPARATOR, type CommandRunnerOptions } from '@hookwise/plugin-agent-command';

let dir: string;
let logs: string[];
let ctx: PluginContext;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-agent-command-'));
  logs = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => logs.push(chunk.toString('utf8')));
  const redactor = new Redactor();
  ctx = {
    logger: createLogger({ stream, redactor, level: 'debug' }),
    configDir: dir,
    env: { PATH: process.env.PATH, GATEWAY_ONLY: 'from-gateway' },
    signal: new AbortController().signal,
    redact: (s) => redactor.add(s),
  };
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

function script(name: string, source: string): string {
  const file = join(dir, name);
  writeFileSync(file, source);
  return file;
}

function runner(command: string[], extra: Partial<CommandRunnerOptions> = {}) {
  return createCommandRunner({ command, inherit_env: true, kill_grace_seconds: 0.2, max_output_bytes: 1024 * 1024, ...extra }, ctx);
}

const task: AgentTask = { prompt: 'Summarise PR #7', skills: [], route: 'ci', event: 'pull_request', deliveryId: 'd-1' };
const signal = () => new AbortController().signal;

// Reports what the child saw: stdin, argv, cwd and the variables Hookwise sets.
const REPORTER = `
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const pick = (k) => process.env[k];
  process.stdout.write(JSON.stringify({
    stdin: input, argv: process.argv.slice(2), cwd: process.cwd(),
    env: { route: pick('HOOKWISE_ROUTE'), event: pick('HOOKWISE_EVENT'), delivery: pick('HOOKWISE_DELIVERY_ID'),
           skillDirs: pick('HOOKWISE_SKILL_DIRS'), extra: pick('EXTRA'), gateway: pick('GATEWAY_ONLY') },
  }) + '\\n');
});
`;

/** A killed process whose parent is gone stays a zombie until init reaps it; a zombie counts as dead. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('command agent runner', () => {
  it('sends the prompt on stdin and answers with stdout; sets HOOKWISE_ROUTE, _EVENT, _DELIVERY_ID and the configured env', async () => {
    const file = script('report.js', REPORTER);
    const result = await runner([process.execPath, file, '--flag'], { env: { EXTRA: 'yes' } }).run(task, { signal: signal() });
    const seen = JSON.parse(result.text);
    expect(seen.stdin).toBe('Summarise PR #7');
    expect(seen.argv).toEqual(['--flag']);
    // A fresh work dir, never the config dir (issue 29).
    expect(seen.cwd).not.toBe(dir);
    expect(seen.cwd).toMatch(/hookwise-run-/);
    expect(seen.env).toEqual({ route: 'ci', event: 'pull_request', delivery: 'd-1', skillDirs: '', extra: 'yes', gateway: 'from-gateway' });
  });

  it('leaves out the gateway environment when inherit_env is false', async () => {
    const file = script('report.js', REPORTER);
    const result = await runner([process.execPath, file], { inherit_env: false, env: { EXTRA: 'only-this' } }).run(task, { signal: signal() });
    const seen = JSON.parse(result.text);
    expect(seen.env.gateway).toBeUndefined();
    expect(seen.env.extra).toBe('only-this');
    expect(seen.env.route).toBe('ci');
  });

  it('puts the prompt into a {prompt} argument placeholder verbatim and leaves stdin unconnected', async () => {
    const file = script('report.js', REPORTER);
    const prompt = 'costs $& and $1 {prompt} "quoted"; rm -rf /';
    const result = await runner([process.execPath, file, '-p', '--prompt={prompt}']).run({ ...task, prompt }, { signal: signal() });
    const seen = JSON.parse(result.text);
    expect(seen.argv).toEqual(['-p', `--prompt=${prompt}`]);
    expect(seen.stdin).toBe('');
  });

  it('prepends the skills in the documented layout and lists skill directories in HOOKWISE_SKILL_DIRS', async () => {
    const file = script('report.js', REPORTER);
    const skills = [
      {
        name: 'webhook-subscriptions',
        description: 'Create webhook subscriptions',
        body: 'Run `hookwise webhook subscribe`.',
        dir: '/skills/webhook-subscriptions',
      },
      { name: 'inline', description: 'No directory', body: 'Be brief.' },
      { name: 'triage', description: 'Triage issues', body: 'Label them.', dir: '/skills/triage' },
    ];
    const result = await runner([process.execPath, file]).run({ ...task, skills }, { signal: signal() });
    const seen = JSON.parse(result.text);
    expect(seen.stdin).toBe(`${formatSkills(skills)}${SKILLS_SEPARATOR}Summarise PR #7`);
    expect(seen.stdin).toContain(
      '<skill name="webhook-subscriptions">\ndescription: Create webhook subscriptions\n\nRun `hookwise webhook subscribe`.\n</skill>',
    );
    // The directories after the last skill: a sandboxed run's own copies must not split the skills' shared text.
    expect(seen.stdin).toContain(
      "</skill>\n\nThe skills' files (scripts and references a skill names) are in these directories in this run:\n- webhook-subscriptions: /skills/webhook-subscriptions\n- triage: /skills/triage\n\n---",
    );
    expect(seen.env.skillDirs).toBe(['/skills/webhook-subscriptions', '/skills/triage'].join(delimiter));
  });

  it('fails with the exit code and the tail of stderr on a non-zero exit, and logs stderr lines', async () => {
    const file = script('fail.js', `process.stderr.write('starting\\n' + 'x'.repeat(5000) + '\\nboom: model refused\\n'); process.exit(3);`);
    const error = await runner([process.execPath, file])
      .run(task, { signal: signal() })
      .catch((e) => e);
    expect(error.code).toBe('HW_E_AGENT');
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/exited with code 3; stderr: \.\.\.x+\nboom: model refused$/);
    expect(error.message).not.toContain('starting');
    expect(logs.join('')).toContain('boom: model refused');
  });

  it('caps huge stdout at max_output_bytes and says the answer was cut', async () => {
    const file = script('flood.js', `const chunk = 'y'.repeat(65536); for (let i = 0; i < 80; i++) process.stdout.write(chunk);`);
    const result = await runner([process.execPath, file], { max_output_bytes: 10_000 }).run(task, { signal: signal() });
    expect(result.text).toBe(`${'y'.repeat(10_000)}\n\n[output cut at 10000 bytes]`);
    expect(logs.join('')).toContain('more than max_output_bytes (10000)');
  });

  it('kills the whole process tree, including a grandchild that ignores SIGTERM, when its timeout passes', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const grandchild = script(
      'grandchild.js',
      `process.on('SIGTERM', () => {}); require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`,
    );
    const parent = script(
      'parent.js',
      `require('child_process').spawn(process.execPath, [${JSON.stringify(grandchild)}], { stdio: 'ignore' }); setInterval(() => {}, 1000);`,
    );
    const run = runner([process.execPath, parent], { timeout_seconds: 0.5 }).run(task, { signal: signal() });
    const error = await run.catch((e) => e);
    expect(error.code).toBe('HW_E_AGENT_TIMEOUT');
    expect(error.retryable).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !isAlive(pid), `grandchild ${pid} to be killed`);
    expect(isAlive(pid)).toBe(false);
  });

  it('kills the process tree when the worker aborts the run', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const grandchild = script('grandchild.js', `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`);
    const parent = script(
      'parent.js',
      `require('child_process').spawn(process.execPath, [${JSON.stringify(grandchild)}], { stdio: 'ignore' }); setInterval(() => {}, 1000);`,
    );
    const controller = new AbortController();
    const run = runner([process.execPath, parent]).run(task, { signal: controller.signal });
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', 'the grandchild to start');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    controller.abort(new Error('agent run exceeded 1s'));
    const error = await run.catch((e) => e);
    expect(error.code).toBe('HW_E_AGENT');
    expect(error.message).toContain('was stopped (agent run exceeded 1s)');
    await waitFor(() => !isAlive(pid), `grandchild ${pid} to be killed`);
  });

  it('says what to check when the program cannot be started', async () => {
    const error = await runner(['hookwise-no-such-agent-cli'])
      .run(task, { signal: signal() })
      .catch((e) => e);
    expect(error.code).toBe('HW_E_AGENT');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("agent command 'hookwise-no-such-agent-cli' could not be started");
    expect(error.message).toContain('on PATH');
  });

  it('is registered as agent "command" with defaults applied and a required command', () => {
    const registry = new PluginRegistry([{ plugin, source: 'test', options: {} }]);
    const ok = registry.validateOptions('agent', 'command', { command: ['claude', '-p'] }, 'agent');
    expect(ok.problems).toEqual([]);
    expect(ok.options).toEqual({ command: ['claude', '-p'], inherit_env: false, kill_grace_seconds: 5, max_output_bytes: 1048576 });
    expect(registry.validateOptions('agent', 'command', {}, 'agent').problems.join('\n')).toContain('command');
  });
});
