// A local stand-in for a Chat Completions server: answers from a script and records every request it got.
import { startRecordingServer, type RecordedRequest as Recorded } from '@hookwise/testing';
import type { IncomingHttpHeaders } from 'node:http';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** baseUrl ends in /v1, as OpenAI-compatible base URLs do. */
export interface ChatServer {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const asRequest = (r: Recorded): RecordedRequest => ({
  method: r.method,
  path: r.url,
  headers: r.headers,
  body: JSON.parse(r.body) as Record<string, unknown>,
});

/** Replies are used in order; a request past the end of the script gets a 500 naming the problem. */
export async function startChatServer(script: ScriptedReply[]): Promise<ChatServer> {
  // The shared recording server of @hookwise/testing, answering from the script.
  const server = await startRecordingServer((_req, index) => {
    const reply = script[index] ?? { status: 500, body: { error: { message: 'script exhausted', type: 'server_error' } } };
    return { status: reply.status ?? 200, headers: { ...reply.headers }, json: reply.body };
  });
  return {
    baseUrl: `${server.url}/v1`,
    get requests() {
      return server.requests.map(asRequest);
    },
    close: () => server.close(),
  };
}

export function completion(content: string | null, toolCalls?: Array<{ id: string; command: string }>): ScriptedReply {
  const message: Record<string, unknown> = { role: 'assistant', content };
  if (toolCalls) {
    message.tool_calls = toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: 'terminal', arguments: JSON.stringify({ command: c.command }) },
    }));
  }
  return {
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'test-model',
      choices: [{ index: 0, message, finish_reason: toolCalls ? 'tool_calls' : 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    },
  };
}

/** A reply whose model calls tools by name (a route's actions, offered as MCP tools) with these arguments. */
export function toolCalls(calls: Array<{ id: string; name: string; args: unknown }>): ScriptedReply {
  const message = {
    role: 'assistant',
    content: null,
    tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })),
  };
  return { body: { id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message, finish_reason: 'tool_calls' }] } };
}

/** The model's last reply: its answer, no tool call. */
export const final = (content: string): ScriptedReply => ({
  body: {
    id: 'c2',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  },
});

/** The admin API's token of the scripted gateways (their runs are unsandboxed: no admin API without one). */
export const ADMIN_TOKEN = 'scripted-admin-token-0123456789';
/** The headers of an admin API request of these tests. */
export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };

/**
 * The config lines after a test's routes for a gateway whose openai runner talks to `chat` (the key read from
 * `keyEnv`): four steps at most, no sandbox, fast retries, the admin API on.
 */
export function scriptedAgentLines(chat: ChatServer, keyEnv: string): string[] {
  return [
    'agent:',
    '  runner: openai',
    `  base_url: ${chat.baseUrl}`,
    '  model: scripted-model',
    `  api_key_env: ${keyEnv}`,
    '  max_steps: 4',
    '  sandbox: { mode: "off" }',
    'retry: { base_delay_seconds: 0.05, max_delay_seconds: 0.2 }',
    `admin: { enabled: true, token: "${ADMIN_TOKEN}" }`,
  ];
}
