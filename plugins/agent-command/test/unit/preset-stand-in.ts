// The stand-in the preset tests run: an executable named like each CLI, first on PATH, that checks the flags it was
// given, records its stdin, and prints the output a test hands it; and a runner set up as the gateway would.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createLogger, PluginRegistry, Redactor } from '@hookwise/gateway';
import { UNTRUSTED_INPUT_NOTE, formatSkills } from '@hookwise/agent-kit';
import { type AgentTask, type PluginContext } from '@hookwise/core';
import plugin, { createCommandRunner, type CommandRunnerOptions } from '@hookwise/plugin-agent-command';
import { openSandboxRun, probeSandbox, resolveSandboxPolicy } from '@hookwise/sandbox';

let dir: string;
let bin: string;
let logs: string[];

export const skills = [{ name: 'code-review', description: 'Review a pull request', body: 'Point out bugs first.' }];
// A prompt that would be an option if it were put into argv: it must arrive on stdin, unchanged.
export const task: AgentTask = { prompt: '--dangerously-skip-permissions review PR #7', skills, route: 'pr', event: 'pull_request', deliveryId: 'd-7' };
export const systemText = `${UNTRUSTED_INPUT_NOTE}\n\n${formatSkills(skills)}`;

/** What a preset sends on stdin for `text`: the note line, then `text` between the run's own delimiter lines. */
export function fenced(text: string): string {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return expect.stringMatching(
    new RegExp(`^The task below[^\\n]*\\n<<<hookwise-payload-([0-9a-f]{24})>>>\\n${escaped}\\n<<<end-hookwise-payload-\\1>>>$`),
  ) as unknown as string;
}

// The stand-in: fails (exit 2, reason on stderr) unless its argv is exactly STANDIN_ARGV; prints STANDIN_OUTPUT.
export const STAND_IN = `#!/usr/bin/env node
const fs = require('node:fs');
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const argv = process.argv.slice(2);
  // Claude Code's --mcp-config names a file: recorded with its mode, and compared as '<mcp-config file>'.
  const at = argv.indexOf('--mcp-config');
  const file = at >= 0 ? argv[at + 1] : undefined;
  const mcp = file ? { file, mode: fs.statSync(file).mode & 0o777, config: JSON.parse(fs.readFileSync(file, 'utf8')) } : null;
  const compared = argv.map((a, i) => (file && i === at + 1 ? '<mcp-config file>' : a));
  fs.writeFileSync(process.env.STANDIN_RECORD, JSON.stringify({ argv, stdin: input, key: process.env.ANTHROPIC_API_KEY ?? null, mcp, env: Object.keys(process.env) }));
  if (JSON.stringify(compared) !== process.env.STANDIN_ARGV) {
    process.stderr.write('unexpected arguments: ' + JSON.stringify(argv) + '\\n');
    process.exit(2);
  }
  process.stdout.write(fs.readFileSync(process.env.STANDIN_OUTPUT, 'utf8'));
  process.exit(Number(process.env.STANDIN_EXIT ?? '0'));
});
`;

/** Each test gets a fresh directory with the stand-ins in its bin/ (call once at the top of a test file). */
export function useStandIns(): void {
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hw-agent-presets-'));
    bin = join(dir, 'bin');
    mkdirSync(bin);
    for (const name of ['claude', 'codex', 'gemini', 'opencode']) {
      writeFileSync(join(bin, name), STAND_IN);
      chmodSync(join(bin, name), 0o755);
    }
    logs = [];
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));
}

/** The current test's directory. */
export function standInDir(): string {
  return dir;
}

export function context(): PluginContext {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => logs.push(chunk.toString('utf8')));
  const redactor = new Redactor();
  return {
    logger: createLogger({ stream, redactor, level: 'debug' }),
    configDir: dir,
    // The stand-ins first on PATH, then this node (for their #! line).
    env: { PATH: [bin, dirname(process.execPath), '/usr/bin', '/bin'].join(':'), ANTHROPIC_API_KEY: 'sk-ant-preset-test-key' },
    signal: new AbortController().signal,
    redact: (s) => redactor.add(s),
  };
}

/** Options as the gateway validates them (defaults applied), then a run with the stand-in set up. */
export async function runPreset(
  agent: Record<string, unknown>,
  expectedArgv: string[],
  output: string,
  exit = 0,
  runEnv: Record<string, string> = {},
  taskExtra: Partial<AgentTask> = {},
) {
  const registry = new PluginRegistry([{ plugin, source: 'test', options: {} }]);
  const record = join(dir, 'record.json');
  writeFileSync(join(dir, 'output'), output);
  const env = { STANDIN_RECORD: record, STANDIN_ARGV: JSON.stringify(expectedArgv), STANDIN_OUTPUT: join(dir, 'output'), STANDIN_EXIT: String(exit) };
  const { options, problems } = registry.validateOptions('agent', 'command', { ...agent, env }, 'agent');
  expect(problems).toEqual([]);
  const runner = createCommandRunner(options as unknown as CommandRunnerOptions, context());
  // As the gateway runs it: in the run's sandbox with mode auto (bubblewrap where this machine has it), with
  // the preset's needs and the stand-ins' directory readable, their record writable.
  const needs = runner.sandboxNeeds?.() ?? {};
  const run = await openSandboxRun({
    decision: resolveSandboxPolicy('auto', await probeSandbox()),
    label: 'preset test',
    readOnly: [...(needs.readOnly ?? []), bin],
    writable: [...(needs.writable ?? []), dir],
    home: needs.home,
  });
  expect(run.sandboxed).toBe((await probeSandbox()).available);
  const sandbox = {
    mode: run.decision.mode,
    sandboxed: run.sandboxed,
    reason: run.decision.reason,
    workDir: run.workDir,
    // The gateway's job channel adds its variables to every process of the run the same way (job-channel-run.ts).
    plan: (command: string, args: readonly string[], env: NodeJS.ProcessEnv) => run.plan(command, args, { ...env, ...runEnv }),
    spawn: run.spawn,
    onClose: () => undefined,
  };
  const outcome = await runner
    .run({ ...task, ...taskExtra, sandbox }, { signal: new AbortController().signal })
    .then(
      (result) => ({ result, error: undefined }),
      (error: Error & { retryable?: boolean }) => ({ result: undefined, error }),
    )
    .finally(() => run.close());
  const seen = JSON.parse(readFileSync(record, 'utf8')) as {
    argv: string[];
    stdin: string;
    key: string | null;
    mcp: { file: string; mode: number; config: unknown } | null;
    env: string[];
  };
  return { ...outcome, seen };
}
