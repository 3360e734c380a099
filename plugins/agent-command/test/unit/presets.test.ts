// The command runner's presets end to end: a stand-in executable named like each CLI, first on PATH, checks the
// flags it was given, records its stdin, and prints the output format the CLI documents (the sample of its
// documentation, copied as it is); the runner must read the answer and the token usage from it.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createLogger, PluginRegistry, Redactor } from '@hookwise/gateway';
import { UNTRUSTED_INPUT_NOTE, formatSkills } from '@hookwise/agent-kit';
import { type AgentTask, type PluginContext } from '@hookwise/core';
import plugin, { SKILLS_SEPARATOR, createCommandRunner, tomlString, type CommandRunnerOptions } from '@hookwise/plugin-agent-command';

let dir: string;
let bin: string;
let logs: string[];

const skills = [{ name: 'code-review', description: 'Review a pull request', body: 'Point out bugs first.' }];
// A prompt that would be an option if it were put into argv: it must arrive on stdin, unchanged.
const task: AgentTask = { prompt: '--dangerously-skip-permissions review PR #7', skills, route: 'pr', event: 'pull_request', deliveryId: 'd-7' };
const systemText = `${UNTRUSTED_INPUT_NOTE}\n\n${formatSkills(skills)}`;

// The stand-in: fails (exit 2, reason on stderr) unless its argv is exactly STANDIN_ARGV; prints STANDIN_OUTPUT.
const STAND_IN = `#!/usr/bin/env node
const fs = require('node:fs');
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const argv = process.argv.slice(2);
  fs.writeFileSync(process.env.STANDIN_RECORD, JSON.stringify({ argv, stdin: input, key: process.env.ANTHROPIC_API_KEY ?? null }));
  if (JSON.stringify(argv) !== process.env.STANDIN_ARGV) {
    process.stderr.write('unexpected arguments: ' + JSON.stringify(argv) + '\\n');
    process.exit(2);
  }
  process.stdout.write(fs.readFileSync(process.env.STANDIN_OUTPUT, 'utf8'));
  process.exit(Number(process.env.STANDIN_EXIT ?? '0'));
});
`;

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

function context(): PluginContext {
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
async function runPreset(agent: Record<string, unknown>, expectedArgv: string[], output: string, exit = 0) {
  const registry = new PluginRegistry([{ plugin, source: 'test', options: {} }]);
  const record = join(dir, 'record.json');
  writeFileSync(join(dir, 'output'), output);
  const env = { STANDIN_RECORD: record, STANDIN_ARGV: JSON.stringify(expectedArgv), STANDIN_OUTPUT: join(dir, 'output'), STANDIN_EXIT: String(exit) };
  const { options, problems } = registry.validateOptions('agent', 'command', { ...agent, env }, 'agent');
  expect(problems).toEqual([]);
  const runner = createCommandRunner(options as unknown as CommandRunnerOptions, context());
  const outcome = await runner.run(task, { signal: new AbortController().signal }).then(
    (result) => ({ result, error: undefined }),
    (error: Error & { retryable?: boolean }) => ({ result: undefined, error }),
  );
  const seen = JSON.parse(readFileSync(record, 'utf8')) as { argv: string[]; stdin: string; key: string | null };
  return { ...outcome, seen };
}

describe('command runner presets', () => {
  it('claude: -p --output-format json, skills in --append-system-prompt, the prompt on stdin; answer from result (the documented sample)', async () => {
    // "Run Claude Code programmatically" (Claude Code docs, JSON output, "Response format"), as published.
    const documented = `{
  "type": "result",
  "subtype": "success",
  "total_cost_usd": 0.003,
  "is_error": false,
  "duration_ms": 1234,
  "duration_api_ms": 800,
  "num_turns": 6,
  "result": "The response text here...",
  "session_id": "abc123"
}
`;
    const { result, error, seen } = await runPreset({ preset: 'claude' }, ['-p', '--output-format', 'json', '--append-system-prompt', systemText], documented);
    expect(error).toBeUndefined();
    expect(result).toEqual({ text: 'The response text here...' });
    expect(seen.stdin).toBe(task.prompt);
    // The preset passes the CLI its own key.
    expect(seen.key).toBe('sk-ant-preset-test-key');
  });

  it('claude: usage from the result message (input, cache reads and writes, output), --verbose output and extra args', async () => {
    // The Agent SDK reference's SDKResultMessage (success): usage is the API's usage object; with --verbose the
    // CLI prints the list of messages, the result last.
    const verbose = JSON.stringify([
      { type: 'system', subtype: 'init', session_id: '3a9f2c10-8d3e-4b3c-9d0a-5f1e2b7c4d6e', model: 'claude-sonnet-4-5' },
      {
        type: 'result',
        subtype: 'success',
        uuid: '8f14e45f-ceea-467a-9575-7f1d2c3b4a5e',
        session_id: '3a9f2c10-8d3e-4b3c-9d0a-5f1e2b7c4d6e',
        duration_ms: 5123,
        duration_api_ms: 4210,
        is_error: false,
        num_turns: 3,
        result: 'LGTM: the retry loop honours Retry-After.',
        total_cost_usd: 0.0421,
        usage: {
          input_tokens: 12,
          cache_creation_input_tokens: 1800,
          cache_read_input_tokens: 14000,
          output_tokens: 420,
          server_tool_use: { web_search_requests: 0 },
          service_tier: 'standard',
        },
        modelUsage: {},
        permission_denials: [],
      },
    ]);
    const { result } = await runPreset(
      { preset: 'claude', args: ['--verbose', '--model', 'sonnet'] },
      ['-p', '--output-format', 'json', '--append-system-prompt', systemText, '--verbose', '--model', 'sonnet'],
      verbose,
    );
    expect(result).toEqual({
      text: 'LGTM: the retry loop honours Retry-After.',
      usage: { inputTokens: 15812, outputTokens: 420, cachedInputTokens: 14000, cacheWriteTokens: 1800 },
    });
  });

  it('claude: an error result (exit 1) says what Claude Code reported; max turns is not retried', async () => {
    const maxTurns = JSON.stringify({
      type: 'result',
      subtype: 'error_max_turns',
      is_error: true,
      duration_ms: 900,
      duration_api_ms: 700,
      num_turns: 3,
      session_id: 'abc123',
      total_cost_usd: 0.01,
      usage: { input_tokens: 10, output_tokens: 5 },
      permission_denials: [],
      errors: [],
    });
    const failedRun = await runPreset({ preset: 'claude' }, ['-p', '--output-format', 'json', '--append-system-prompt', systemText], maxTurns, 1);
    expect(failedRun.error?.message).toContain('exited with code 1');
    expect(failedRun.error?.message).toContain('Claude Code says: error_max_turns');
    const exit0 = await runPreset({ preset: 'claude' }, ['-p', '--output-format', 'json', '--append-system-prompt', systemText], maxTurns, 0);
    expect(exit0.error?.message).toContain('Claude Code: the run ended with error_max_turns');
    expect(exit0.error?.retryable).toBe(false);
  });

  it('codex: exec --json --skip-git-repo-check -c developer_instructions=... -, the prompt on stdin; answer and usage from the documented JSONL', async () => {
    // openai/codex docs/exec.md, "JSON output mode", sample output, as published.
    const documented = [
      '{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}',
      '{"type":"turn.started"}',
      '{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Searching for README files**"}}',
      '{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","status":"in_progress"}}',
      '{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"2025-09-11\\nAGENTS.md\\nCHANGELOG.md\\ncliff.toml\\ncodex-cli\\ncodex-rs\\ndocs\\nexamples\\nflake.lock\\nflake.nix\\nLICENSE\\nnode_modules\\nNOTICE\\npackage.json\\npnpm-lock.yaml\\npnpm-workspace.yaml\\nPNPM.md\\nREADME.md\\nscripts\\nsdk\\ntmp\\n","exit_code":0,"status":"completed"}}',
      '{"type":"item.completed","item":{"id":"item_2","type":"reasoning","text":"**Checking repository root for README**"}}',
      '{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"Yep — there’s a `README.md` in the repository root."}}',
      '{"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}}',
    ].join('\n');
    const expected = ['exec', '--json', '--skip-git-repo-check', '-c', `developer_instructions=${tomlString(systemText)}`, '--sandbox', 'read-only', '-'];
    const { result, error, seen } = await runPreset({ preset: 'codex', args: ['--sandbox', 'read-only'] }, expected, `${documented}\n`);
    expect(error).toBeUndefined();
    expect(result).toEqual({
      text: 'Yep — there’s a `README.md` in the repository root.',
      usage: { inputTokens: 24763, outputTokens: 122, cachedInputTokens: 24448 },
    });
    expect(seen.stdin).toBe(task.prompt);
    // The TOML string holds the system text exactly (a TOML basic string reads like a JSON string).
    expect(JSON.parse(seen.argv[4].slice('developer_instructions='.length))).toBe(systemText);
  });

  it('codex: a failed turn fails the run with its message', async () => {
    const events = [
      '{"type":"thread.started","thread_id":"t1"}',
      '{"type":"turn.started"}',
      '{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}',
    ].join('\n');
    const { error } = await runPreset(
      { preset: 'codex' },
      ['exec', '--json', '--skip-git-repo-check', '-c', `developer_instructions=${tomlString(systemText)}`, '-'],
      events,
    );
    expect(error?.message).toContain('Codex: the turn failed: stream disconnected before completion');
    expect(error?.retryable).toBe(true);
  });

  it('gemini: --output-format json, skills and prompt on stdin; answer and usage summed over models from the documented JSON', async () => {
    // google-gemini/gemini-cli docs/cli/headless.md, "JSON output", example response, as published.
    const documented = `{
  "response": "The capital of France is Paris.",
  "stats": {
    "models": {
      "gemini-2.5-pro": {
        "api": {
          "totalRequests": 2,
          "totalErrors": 0,
          "totalLatencyMs": 5053
        },
        "tokens": {
          "prompt": 24939,
          "candidates": 20,
          "total": 25113,
          "cached": 21263,
          "thoughts": 154,
          "tool": 0
        }
      },
      "gemini-2.5-flash": {
        "api": {
          "totalRequests": 1,
          "totalErrors": 0,
          "totalLatencyMs": 1879
        },
        "tokens": {
          "prompt": 8965,
          "candidates": 10,
          "total": 9033,
          "cached": 0,
          "thoughts": 30,
          "tool": 28
        }
      }
    },
    "tools": {
      "totalCalls": 1,
      "totalSuccess": 1,
      "totalFail": 0,
      "totalDurationMs": 1881,
      "totalDecisions": {
        "accept": 0,
        "reject": 0,
        "modify": 0,
        "auto_accept": 1
      },
      "byName": {
        "google_web_search": {
          "count": 1,
          "success": 1,
          "fail": 0,
          "durationMs": 1881,
          "decisions": {
            "accept": 0,
            "reject": 0,
            "modify": 0,
            "auto_accept": 1
          }
        }
      }
    },
    "files": {
      "totalLinesAdded": 0,
      "totalLinesRemoved": 0
    }
  }
}`;
    const { result, error, seen } = await runPreset({ preset: 'gemini' }, ['--output-format', 'json'], documented);
    expect(error).toBeUndefined();
    // Per model: input = prompt + tool, output = candidates + thoughts (total = their sum); prompt counts cached.
    expect(result).toEqual({
      text: 'The capital of France is Paris.',
      usage: { inputTokens: 24939 + 8965 + 28, outputTokens: 20 + 154 + 10 + 30, cachedInputTokens: 21263 },
    });
    expect(seen.stdin).toBe(`${formatSkills(skills)}${SKILLS_SEPARATOR}${task.prompt}`);
  });

  it('gemini: the error object of the JSON output is the reason of a failed run', async () => {
    const output = JSON.stringify({ session_id: 's1', error: { type: 'FatalAuthenticationError', message: 'Please set an Auth method', code: 41 } }, null, 2);
    const { error } = await runPreset({ preset: 'gemini' }, ['--output-format', 'json'], output, 41);
    expect(error?.message).toContain('Gemini CLI says: FatalAuthenticationError: Please set an Auth method (code 41)');
  });

  it("opencode: run --format json, skills and prompt on stdin; the last step's text and the steps' tokens", async () => {
    // The events `opencode run --format json` writes (anomalyco/opencode, cli/cmd/run.ts emit(): type, timestamp,
    // sessionID, part; StepFinishPart tokens in session/message-v2.ts): a tool step, then the answer.
    const events = [
      {
        type: 'step_start',
        timestamp: 1767036059338,
        sessionID: 'ses_4a1b',
        part: { id: 'prt_1', sessionID: 'ses_4a1b', messageID: 'msg_1', type: 'step-start' },
      },
      {
        type: 'text',
        timestamp: 1767036060100,
        sessionID: 'ses_4a1b',
        part: {
          id: 'prt_2',
          sessionID: 'ses_4a1b',
          messageID: 'msg_1',
          type: 'text',
          text: 'Let me read the diff.',
          time: { start: 1767036059400, end: 1767036060100 },
        },
      },
      {
        type: 'tool_use',
        timestamp: 1767036061000,
        sessionID: 'ses_4a1b',
        part: {
          id: 'prt_3',
          sessionID: 'ses_4a1b',
          messageID: 'msg_1',
          type: 'tool',
          callID: 'call_1',
          tool: 'bash',
          state: {
            status: 'completed',
            input: { command: 'git diff' },
            output: '...',
            title: 'git diff',
            metadata: {},
            time: { start: 1767036060200, end: 1767036061000 },
          },
        },
      },
      {
        type: 'step_finish',
        timestamp: 1767036061100,
        sessionID: 'ses_4a1b',
        part: {
          id: 'prt_4',
          sessionID: 'ses_4a1b',
          messageID: 'msg_1',
          type: 'step-finish',
          reason: 'tool-calls',
          cost: 0.0031,
          tokens: { input: 1200, output: 80, reasoning: 0, cache: { read: 9000, write: 300 } },
        },
      },
      {
        type: 'step_start',
        timestamp: 1767036061200,
        sessionID: 'ses_4a1b',
        part: { id: 'prt_5', sessionID: 'ses_4a1b', messageID: 'msg_2', type: 'step-start' },
      },
      {
        type: 'text',
        timestamp: 1767036063000,
        sessionID: 'ses_4a1b',
        part: {
          id: 'prt_6',
          sessionID: 'ses_4a1b',
          messageID: 'msg_2',
          type: 'text',
          text: 'The change looks correct.',
          time: { start: 1767036061300, end: 1767036063000 },
        },
      },
      {
        type: 'step_finish',
        timestamp: 1767036063100,
        sessionID: 'ses_4a1b',
        part: {
          id: 'prt_7',
          sessionID: 'ses_4a1b',
          messageID: 'msg_2',
          type: 'step-finish',
          reason: 'stop',
          cost: 0.0012,
          tokens: { input: 300, output: 40, reasoning: 12, cache: { read: 10200, write: 0 } },
        },
      },
    ]
      .map((e) => JSON.stringify(e))
      .join('\n');
    const { result, error, seen } = await runPreset(
      { preset: 'opencode', args: ['--model', 'anthropic/claude-sonnet-4-5'] },
      ['run', '--format', 'json', '--model', 'anthropic/claude-sonnet-4-5'],
      `${events}\n`,
    );
    expect(error).toBeUndefined();
    expect(result).toEqual({
      text: 'The change looks correct.',
      usage: { inputTokens: 1200 + 9000 + 300 + 300 + 10200, outputTokens: 80 + 40 + 12, cachedInputTokens: 19200, cacheWriteTokens: 300 },
    });
    expect(seen.stdin).toBe(`${formatSkills(skills)}${SKILLS_SEPARATOR}${task.prompt}`);
  });

  it("starts the program agent.command names instead of the preset's, keeping the preset's flags", async () => {
    const other = join(dir, 'claude-nightly');
    writeFileSync(other, STAND_IN);
    chmodSync(other, 0o755);
    const documented = JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'from the nightly', session_id: 'abc123' });
    const { result } = await runPreset(
      { preset: 'claude', command: [other] },
      ['-p', '--output-format', 'json', '--append-system-prompt', systemText],
      documented,
    );
    expect(result?.text).toBe('from the nightly');
  });

  it('fails without retry when the output is not the documented JSON (an old version, or text mode)', async () => {
    const { error } = await runPreset({ preset: 'claude' }, ['-p', '--output-format', 'json', '--append-system-prompt', systemText], 'Plain text answer\n');
    expect(error?.retryable).toBe(false);
    expect(error?.message).toContain('Claude Code: its output is not the JSON it documents');
  });

  it('is validated by the schema: a preset or a command is required, presets are known by name, {prompt} is refused with a preset', () => {
    const registry = new PluginRegistry([{ plugin, source: 'test', options: {} }]);
    expect(registry.validateOptions('agent', 'command', { preset: 'claude' }, 'agent').problems).toEqual([]);
    expect(registry.validateOptions('agent', 'command', { preset: 'cursor' }, 'agent').problems.join('\n')).toContain('agent.preset');
    expect(registry.validateOptions('agent', 'command', {}, 'agent').problems.join('\n')).toMatch(/command|preset/);
    expect(() =>
      createCommandRunner({ preset: 'claude', args: ['--message={prompt}'], inherit_env: false, kill_grace_seconds: 1, max_output_bytes: 1000 }, context()),
    ).toThrow('the prompt always goes on stdin with a preset');
  });
});
