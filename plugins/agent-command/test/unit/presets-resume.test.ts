// Conversations with the presets (issue 31): turn 1 prints the CLI's session id, which the runner returns as
// AgentResult.session; on turn 2 the gateway passes it back and the preset resumes the CLI's own session with the
// new reply alone on stdin (Claude Code `--resume <session_id>`, Codex `exec ... resume <thread_id> -`), else the
// rendered history goes on stdin as before. The stand-in records argv and stdin and fails on any other argv.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fenced, runPreset, systemText, task, useStandIns } from './preset-stand-in';

useStandIns();

const CLAUDE_FLAGS = ['-p', '--output-format', 'json', '--append-system-prompt', systemText];
const claudeOutput = (session: string, text: string) =>
  JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: text, session_id: session, num_turns: 1 });
const REPLY = 'Reply from telegram:1111111 (alice):\nwhy did it fail?';
const HISTORY = 'This continues a conversation ... the earlier turns, then the new reply';

let workDir: string;
beforeEach(() => (workDir = mkdtempSync(join(tmpdir(), 'hw-preset-cwd-'))));
afterEach(() => rmSync(workDir, { recursive: true, force: true }));

describe('presets resume the CLI session of a conversation', () => {
  it('claude: turn 1 returns session_id; turn 2 gets --resume <session_id> and only the reply on stdin', async () => {
    const agent = { preset: 'claude', cwd: workDir };
    const first = await runPreset(
      agent,
      CLAUDE_FLAGS,
      claudeOutput('5f1e2b7c-4d6e-4b3c-9d0a-3a9f2c108d3e', 'The deploy failed.'),
      0,
      {},
      {
        conversation: { id: 'job-1', turn: 1 },
      },
    );
    expect(first.error).toBeUndefined();
    expect(first.result).toEqual({ text: 'The deploy failed.', session: '5f1e2b7c-4d6e-4b3c-9d0a-3a9f2c108d3e' });
    expect(first.seen.stdin).toEqual(fenced(task.prompt));

    const second = await runPreset(
      agent,
      [...CLAUDE_FLAGS, '--resume', '5f1e2b7c-4d6e-4b3c-9d0a-3a9f2c108d3e'],
      claudeOutput('5f1e2b7c-4d6e-4b3c-9d0a-3a9f2c108d3e', 'Because the migration timed out.'),
      0,
      {},
      { prompt: HISTORY, conversation: { id: 'job-1', turn: 2, session: first.result!.session, message: REPLY } },
    );
    expect(second.error).toBeUndefined();
    expect(second.seen.argv.slice(-2)).toEqual(['--resume', '5f1e2b7c-4d6e-4b3c-9d0a-3a9f2c108d3e']);
    expect(second.seen.stdin).toEqual(fenced(REPLY));
    expect(second.result?.text).toBe('Because the migration timed out.');
  });

  it('claude without agent.cwd (a fresh work dir per run, where Claude Code cannot find the session): the history, no --resume', async () => {
    const { error, seen } = await runPreset(
      { preset: 'claude' },
      CLAUDE_FLAGS,
      claudeOutput('abc123', 'ok'),
      0,
      {},
      {
        prompt: HISTORY,
        conversation: { id: 'job-1', turn: 2, session: 'abc123', message: REPLY },
      },
    );
    expect(error).toBeUndefined();
    expect(seen.stdin).toEqual(fenced(HISTORY));
  });

  it('claude: a session it cannot resume (the CLI exits with an error) runs again once with the history', async () => {
    // The stand-in refuses the --resume argv (exit 2) and answers the plain one.
    const { result, error, seen } = await runPreset(
      { preset: 'claude', cwd: workDir },
      CLAUDE_FLAGS,
      claudeOutput('new-session-1', 'answered'),
      0,
      {},
      {
        prompt: HISTORY,
        conversation: { id: 'job-1', turn: 2, session: 'gone-session', message: REPLY },
      },
    );
    expect(error).toBeUndefined();
    expect(result).toEqual({ text: 'answered', session: 'new-session-1' });
    expect(seen.argv).not.toContain('--resume');
    expect(seen.stdin).toEqual(fenced(HISTORY));
  });

  it('refuses a session id that looks like an option: the history instead', async () => {
    const { error, seen } = await runPreset(
      { preset: 'claude', cwd: workDir },
      CLAUDE_FLAGS,
      claudeOutput('abc123', 'ok'),
      0,
      {},
      {
        prompt: HISTORY,
        conversation: { id: 'job-1', turn: 2, session: '--dangerously-skip-permissions', message: REPLY },
      },
    );
    expect(error).toBeUndefined();
    expect(seen.stdin).toEqual(fenced(HISTORY));
  });

  it('codex: thread_id of thread.started is the session; turn 2 runs `exec ... resume <thread_id> -` with the reply on stdin', async () => {
    const events = (thread: string, text: string) =>
      [
        { type: 'thread.started', thread_id: thread },
        { type: 'turn.started' },
        { type: 'item.completed', item: { id: 'item_0', type: 'agent_message', text } },
        { type: 'turn.completed', usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5 } },
      ]
        .map((e) => JSON.stringify(e))
        .join('\n');
    const flags = ['exec', '--json', '--skip-git-repo-check', '-c', expect.any(String)];
    const thread = '0199a213-81c0-7800-8aa1-bbab2a035a53';
    // The stand-in compares argv exactly, so the developer_instructions value is read from turn 1's record.
    const first = await runPreset({ preset: 'codex' }, flags.slice(0, 3), events(thread, 'first'), 1, {}, { conversation: { id: 'c', turn: 1 } });
    const instructions = first.seen.argv.slice(3, 5);
    expect(instructions).toEqual(flags.slice(3));
    const base = [...flags.slice(0, 3), ...instructions];
    const one = await runPreset({ preset: 'codex' }, [...base, '-'], events(thread, 'first'), 0, {}, { conversation: { id: 'c', turn: 1 } });
    expect(one.result).toEqual({ text: 'first', session: thread, usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0 } });
    const two = await runPreset(
      { preset: 'codex' },
      [...base, 'resume', thread, '-'],
      events(thread, 'second'),
      0,
      {},
      {
        prompt: HISTORY,
        conversation: { id: 'c', turn: 2, session: one.result!.session, message: REPLY },
      },
    );
    expect(two.error).toBeUndefined();
    expect(two.seen.stdin).toEqual(fenced(REPLY));
    expect(two.result?.text).toBe('second');
  });
});
