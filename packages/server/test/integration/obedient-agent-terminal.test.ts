// Issue 29's proof through the terminal tool of an API runner: the `openai` runner with `tools: [terminal]`,
// driven by a local Chat Completions stand-in that obeys the payload: it asks the terminal to run the shell line
// the prompt carries, then answers with what the tool returned. The same cases as the command agent
// (obedient-cases.ts), with agent.sandbox.mode required and off.
import { startRecordingServer, type RecordingServer } from '@hookwise/testing';
import { obedientCases } from './obedient-cases';
import { startObedientGateway } from './obedient-gateway';

interface ChatMessage {
  role: string;
  content?: string | null;
}

/** A model that does what the payload says: one terminal call per prompt, then the tool's output as its answer. */
function obedientModel(): Promise<RecordingServer> {
  return startRecordingServer((req) => {
    const messages = ((req.json as { messages?: ChatMessage[] } | undefined)?.messages ?? []).filter((m) => m.role !== 'system');
    const last = messages[messages.length - 1];
    const message =
      last?.role === 'tool'
        ? { role: 'assistant', content: String(last.content) }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call-1',
                type: 'function',
                function: { name: 'terminal', arguments: JSON.stringify({ command: /^RUN: (.*)$/m.exec(String(last?.content))?.[1] ?? 'echo no RUN line' }) },
              },
            ],
          };
    return {
      json: {
        id: 'chatcmpl-obedient',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: 'obedient',
        choices: [{ index: 0, message, finish_reason: 'tool_calls' in message ? 'tool_calls' : 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      },
    };
  });
}

const models: RecordingServer[] = [];
afterAll(async () => {
  await Promise.all(models.map((m) => m.close()));
});

obedientCases('the openai runner’s terminal tool, obeying a model stand-in', async (mode) => {
  const model = await obedientModel();
  models.push(model);
  return startObedientGateway({
    mode,
    agent: () => ({ runner: 'openai', model: 'obedient', base_url: `${model.url}/v1`, api_key_env: 'OPENAI_API_KEY', tools: ['terminal'] }),
    env: { OPENAI_API_KEY: 'sk-obedient-stand-in-key-0123456789' },
  });
});
