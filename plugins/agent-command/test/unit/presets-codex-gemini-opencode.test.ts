// The command runner's Codex, Gemini CLI and OpenCode presets end to end against a stand-in that prints the output
// format each CLI documents (the sample of its documentation, copied as it is); see preset-stand-in.ts.
import { formatSkills } from '@hookwise/agent-kit';
import { SKILLS_SEPARATOR, tomlString } from '@hookwise/plugin-agent-command';
import { fenced, runPreset, skills, systemText, task, useStandIns } from './preset-stand-in';

useStandIns();

describe('command runner presets: codex, gemini, opencode', () => {
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
      session: '0199a213-81c0-7800-8aa1-bbab2a035a53',
      usage: { inputTokens: 24763, outputTokens: 122, cachedInputTokens: 24448 },
    });
    expect(seen.stdin).toEqual(fenced(task.prompt));
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
    expect(seen.stdin.startsWith(`${formatSkills(skills)}${SKILLS_SEPARATOR}`)).toBe(true);
    expect(seen.stdin.slice(`${formatSkills(skills)}${SKILLS_SEPARATOR}`.length)).toEqual(fenced(task.prompt));
  });

  it('gemini: the error object of the JSON output is the reason of a failed run', async () => {
    const output = JSON.stringify({ session_id: 's1', error: { type: 'FatalAuthenticationError', message: 'Please set an Auth method', code: 41 } }, null, 2);
    const { error } = await runPreset({ preset: 'gemini' }, ['--output-format', 'json'], output, 41);
    expect(error?.message).toContain('exited with code 41: Gemini CLI: FatalAuthenticationError: Please set an Auth method (code 41)');
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
    expect(seen.stdin.startsWith(`${formatSkills(skills)}${SKILLS_SEPARATOR}`)).toBe(true);
    expect(seen.stdin.slice(`${formatSkills(skills)}${SKILLS_SEPARATOR}`.length)).toEqual(fenced(task.prompt));
  });
});
