// The command runner's presets end to end: a stand-in executable named like each CLI, first on PATH, checks the
// flags it was given, records its stdin, and prints the output format the CLI documents (the sample of its
// documentation, copied as it is); the runner must read the answer and the token usage from it.
// Claude Code here, and what holds for every preset; Codex, Gemini CLI and OpenCode: presets-codex-gemini-opencode.test.ts.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PluginRegistry } from '@hookwise/gateway';
import plugin, { createCommandRunner } from '@hookwise/plugin-agent-command';
import { STAND_IN, context, fenced, runPreset, standInDir, systemText, task, useStandIns } from './preset-stand-in';

useStandIns();

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
    expect(result).toEqual({ text: 'The response text here...', session: 'abc123' });
    expect(seen.stdin).toEqual(fenced(task.prompt));
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
      session: '3a9f2c10-8d3e-4b3c-9d0a-5f1e2b7c4d6e',
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
    // Claude Code exits 1 on every error result: the result says it is the turn limit, which is not retried.
    expect(failedRun.error?.message).toContain('Claude Code: the run reached its turn limit (--max-turns)');
    expect(failedRun.error?.retryable).toBe(false);
    const exit0 = await runPreset({ preset: 'claude' }, ['-p', '--output-format', 'json', '--append-system-prompt', systemText], maxTurns, 0);
    expect(exit0.error?.message).toContain('Claude Code: the run reached its turn limit (--max-turns)');
    expect(exit0.error?.retryable).toBe(false);
  });

  it("starts the program agent.command names instead of the preset's, keeping the preset's flags", async () => {
    const other = join(standInDir(), 'claude-nightly');
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
