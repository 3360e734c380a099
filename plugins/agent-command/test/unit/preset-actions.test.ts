// The claude preset gets the run's actions (issue 30): when the run's environment names the job channel and its
// actions (as the gateway's job channel puts them there), the stand-in `claude` must be given `--mcp-config` naming
// a 0600 file in the run's work dir with the channel as an HTTP MCP server, and `--allowedTools` for its tools;
// the token never appears in argv, and the file is gone after the run. Without actions nothing is added.
import { existsSync } from 'node:fs';
import { tomlString } from '@hookwise/plugin-agent-command';
import { runPreset, systemText, useStandIns } from './preset-stand-in';

useStandIns();

const RESULT = JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'Reviewed.', session_id: 's-1' });
const channelEnv = {
  HOOKWISE_JOB_CHANNEL: 'http://127.0.0.1:45123/api/job',
  HOOKWISE_JOB_TOKEN: 'job-token-abcdefghijklmnopqrstuvwxyz012345',
  HOOKWISE_JOB_ACTIONS: 'github.add_labels,github.review',
};

describe('claude preset: the route actions over the job channel', () => {
  it('passes --mcp-config (a 0600 file in the work dir) and --allowedTools mcp__hookwise__*, before the user args', async () => {
    const { result, error, seen } = await runPreset(
      { preset: 'claude', args: ['--model', 'sonnet'] },
      [
        '-p',
        '--output-format',
        'json',
        '--append-system-prompt',
        systemText,
        '--mcp-config',
        '<mcp-config file>',
        '--allowedTools',
        'mcp__hookwise__*',
        '--model',
        'sonnet',
      ],
      RESULT,
      0,
      channelEnv,
    );
    expect(error).toBeUndefined();
    expect(result).toEqual({ text: 'Reviewed.', session: 's-1' });
    expect(seen.mcp).not.toBeNull();
    expect(seen.mcp!.mode).toBe(0o600);
    expect(seen.mcp!.file).toMatch(/\/\.hookwise-mcp-[0-9a-f]{12}\.json$/);
    expect(seen.mcp!.config).toEqual({
      mcpServers: {
        hookwise: { type: 'http', url: channelEnv.HOOKWISE_JOB_CHANNEL, headers: { Authorization: `Bearer ${channelEnv.HOOKWISE_JOB_TOKEN}` } },
      },
    });
    // The token is in the file (and the run's environment), never on the command line.
    expect(seen.argv.join(' ')).not.toContain(channelEnv.HOOKWISE_JOB_TOKEN);
    expect(existsSync(seen.mcp!.file)).toBe(false);
  });

  it('adds nothing when the route lists no actions (a channel without HOOKWISE_JOB_ACTIONS)', async () => {
    const { error, seen } = await runPreset({ preset: 'claude' }, ['-p', '--output-format', 'json', '--append-system-prompt', systemText], RESULT, 0, {
      HOOKWISE_JOB_CHANNEL: channelEnv.HOOKWISE_JOB_CHANNEL,
      HOOKWISE_JOB_TOKEN: channelEnv.HOOKWISE_JOB_TOKEN,
    });
    expect(error).toBeUndefined();
    expect(seen.mcp).toBeNull();
  });

  it('gives codex the channel as config overrides, the token named by variable, never in argv', async () => {
    const events = JSON.stringify({ type: 'item.completed', item: { type: 'agent_message', text: 'ok' } });
    const argv = [
      ...['exec', '--json', '--skip-git-repo-check', '-c', `developer_instructions=${tomlString(systemText)}`],
      ...['-c', `mcp_servers.hookwise.url="${channelEnv.HOOKWISE_JOB_CHANNEL}"`],
      ...['-c', 'mcp_servers.hookwise.bearer_token_env_var="HOOKWISE_JOB_TOKEN"'],
      ...['-c', 'mcp_servers.hookwise.default_tools_approval_mode="approve"'],
      ...['-c', 'mcp_servers.hookwise.required=true', '-'],
    ];
    const { result, error, seen } = await runPreset({ preset: 'codex' }, argv, events, 0, channelEnv);
    expect(error).toBeUndefined();
    expect(result).toEqual({ text: 'ok' });
    expect(seen.mcp).toBeNull();
  });
});
