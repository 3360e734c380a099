// A conversation's transcript with the openai runner (issue 31), against a Chat Completions stand-in: turn 1 keeps
// its user and assistant messages in the gateway's store (ConversationRecords over a memory store's memos, as the
// gateway's conversation-sessions.ts gives them); turn 2's request carries them, then the new reply alone, instead
// of the rendered history. Without a kept transcript the prompt goes as before.
import { PassThrough } from 'node:stream';
import { ConversationRecords, createLogger, createMemoryStore, PluginRegistry, Redactor } from '@hookwise/gateway';
import { type AgentConversation, type AgentTask, type PluginContext } from '@hookwise/core';
import plugin, { createOpenAIRunner, type OpenAIRunnerOptions } from '@hookwise/plugin-agent-openai';
import { completion, startChatServer, type ChatServer } from '../chat-server';

const task: AgentTask = { prompt: 'Alert: disk full on db-1', skills: [], route: 'alerts', event: 'alert', deliveryId: 'd-1' };
const HISTORY = 'This continues a conversation: the event, your answer, then the new reply (rendered)';
const REPLY = 'Reply from telegram:1111111 (alice):\nwhich partition?';

let server: ChatServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function context(): PluginContext {
  const redactor = new Redactor();
  return {
    logger: createLogger({ stream: new PassThrough(), redactor, level: 'debug' }),
    configDir: '/nonexistent-config',
    env: { OPENAI_API_KEY: 'sk-test-0123456789abcdef' },
    signal: new AbortController().signal,
    redact: (s) => redactor.add(s),
  };
}

function runner() {
  const registry = new PluginRegistry([{ plugin, source: 'test', options: {} }]);
  const { options, problems } = registry.validateOptions('agent', 'openai', { model: 'test-model', base_url: server!.baseUrl }, 'agent');
  expect(problems).toEqual([]);
  return createOpenAIRunner(options as unknown as OpenAIRunnerOptions, context());
}

/** The conversation as the gateway passes it: its transcript kept in the store's memos. */
function conversation(records: ConversationRecords, turn: number, message?: string): AgentConversation {
  return {
    id: 'job-1',
    turn,
    ...(message ? { message } : {}),
    transcript: { load: () => records.transcript('job-1'), save: (messages) => records.saveTranscript('job-1', messages, 60_000) },
  };
}

/** A fenced user text: the run's note line, then the text between delimiter lines. */
const fenced = (text: string) =>
  expect.stringMatching(new RegExp(`<<<hookwise-payload-[0-9a-f]+>>>\\n${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n<<<end-hookwise-payload`));

describe('openai runner: transcripts of a conversation', () => {
  it("turn 2's request carries turn 1's user and assistant messages, then the reply alone", async () => {
    server = await startChatServer([completion('The /var partition is at 100%.'), completion('/var, on the data volume.')]);
    const records = new ConversationRecords(createMemoryStore().memos!);
    const signal = new AbortController().signal;
    const first = await runner().run({ ...task, conversation: conversation(records, 1) }, { signal });
    expect(first.text).toBe('The /var partition is at 100%.');
    expect(await records.transcript('job-1')).toEqual([
      { role: 'user', content: task.prompt },
      { role: 'assistant', content: 'The /var partition is at 100%.' },
    ]);

    const second = await runner().run({ ...task, prompt: HISTORY, conversation: conversation(records, 2, REPLY) }, { signal });
    expect(second.text).toBe('/var, on the data volume.');
    const messages = server.requests[1].body.messages as Array<{ role: string; content: string }>;
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[1].content).toEqual(fenced(task.prompt));
    expect(messages[2].content).toBe('The /var partition is at 100%.');
    expect(messages[3].content).toEqual(fenced(REPLY));
    expect(JSON.stringify(messages)).not.toContain(HISTORY);
    expect((await records.transcript('job-1')).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('without a kept transcript (expired), turn 2 sends the rendered history as its prompt', async () => {
    server = await startChatServer([completion('ok')]);
    const records = new ConversationRecords(createMemoryStore().memos!);
    await runner().run({ ...task, prompt: HISTORY, conversation: conversation(records, 2, REPLY) }, { signal: new AbortController().signal });
    const messages = server.requests[0].body.messages as Array<{ role: string; content: string }>;
    expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(messages[1].content).toEqual(fenced(HISTORY));
  });
});
