// The agent runner contract's inputs (run by the first-party contracts test) against a local stand-in for the Messages API.
import { agentRunnerContractCase } from '@hookwise/testing';
import { createAnthropicRunner } from '../src';

const KEY = 'sk-ant-contract-key-0123456789';

export default agentRunnerContractCase(
  'anthropic',
  ({ server, test }) =>
    createAnthropicRunner(
      {
        base_url: server.url,
        model: 'claude-test',
        api_key_env: 'ANTHROPIC_API_KEY',
        max_tokens: 256,
        timeout_seconds: 5,
        max_retries: 0,
        tools: [],
        max_steps: 3,
        terminal: { timeout_seconds: 5, max_output_bytes: 1000, env: [] },
        mcp_servers: [],
      },
      { ...test.ctx, env: { ANTHROPIC_API_KEY: KEY } },
    ),
  {
    secrets: [KEY],
    // 'hang' is left unanswered: only the AbortSignal can end that run.
    api: (_req, scenario) =>
      scenario === 'answer'
        ? {
            json: {
              id: 'msg_contract',
              type: 'message',
              role: 'assistant',
              content: [{ type: 'text', text: 'The build is green.' }],
              stop_reason: 'end_turn',
              stop_sequence: null,
              usage: { input_tokens: 20, output_tokens: 6 },
            },
          }
        : scenario === 'fail'
          ? { status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_contract' } }
          : undefined,
  },
);
