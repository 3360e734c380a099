// The agent runner contract's inputs (run by the first-party contracts test), against the kit's local stand-in for a Chat Completions API.
import { PluginRegistry } from '@hookwise/gateway';
import { agentRunnerContractCase } from '@hookwise/testing';
import plugin, { createOpenAIRunner, type OpenAIRunnerOptions } from '@hookwise/plugin-agent-openai';

const API_KEY = 'sk-contract-0123456789abcdef';

export default agentRunnerContractCase(
  'openai',
  ({ server, test }) => {
    const registry = new PluginRegistry([{ plugin, source: 'test', options: {} }]);
    const { options, problems } = registry.validateOptions('agent', 'openai', { model: 'test-model', base_url: `${server.url}/v1`, max_retries: 0 }, 'agent');
    expect(problems).toEqual([]);
    return createOpenAIRunner(options as unknown as OpenAIRunnerOptions, { ...test.ctx, env: { OPENAI_API_KEY: API_KEY } });
  },
  {
    secrets: [API_KEY],
    api: (req, scenario) => {
      if (scenario === 'hang') return undefined;
      if (scenario === 'fail') return { status: 400, json: { error: { message: 'model not found', type: 'invalid_request_error' } } };
      const prompt = (req.json as { messages: Array<{ role: string; content: string }> }).messages.find((m) => m.role === 'user')?.content;
      return {
        json: {
          id: 'chatcmpl-contract',
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'test-model',
          choices: [{ index: 0, message: { role: 'assistant', content: `answer to: ${prompt}` }, finish_reason: 'stop' }],
        },
      };
    },
    expectAnswer: (text, task, { server }) => {
      // The runner sends the prompt fenced in this run's untrusted-payload delimiters (agent-kit's fenceUntrusted).
      expect(text).toMatch(/^answer to: [\s\S]*\n<<<hookwise-payload-([0-9a-f]+)>>>\n([\s\S]*)\n<<<end-hookwise-payload-\1>>>$/);
      expect(text).toContain(`\n${task.prompt}\n`);
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0].headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(JSON.stringify(server.requests[0].json)).toContain('Answer in one line.');
    },
  },
);
