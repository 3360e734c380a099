// A local stand-in for the Anthropic Messages API: answers from a script (bodies copied from the API's
// documentation) and records every request it got.
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

export interface MessagesServer {
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
export async function startMessagesServer(script: ScriptedReply[]): Promise<MessagesServer> {
  // The shared recording server of @hookwise/testing, answering from the script.
  const server = await startRecordingServer((_req, index) => {
    const reply = script[index] ?? { status: 500, body: { type: 'error', error: { type: 'api_error', message: 'script exhausted' } } };
    return { status: reply.status ?? 200, headers: { 'request-id': `req_test_${index + 1}`, ...reply.headers }, json: reply.body };
  });
  return {
    baseUrl: server.url,
    get requests() {
      return server.requests.map(asRequest);
    },
    close: () => server.close(),
  };
}

/** A message as the API answers it; `content` and `stop_reason` decide what the runner does next. */
export function message(content: unknown[], stopReason: string, usage: Record<string, number> = { input_tokens: 10, output_tokens: 5 }): ScriptedReply {
  return { body: { id: 'msg_test', type: 'message', role: 'assistant', model: 'claude-test', content, stop_reason: stopReason, stop_sequence: null, usage } };
}

/** An error as the API answers it: `{"type":"error","error":{"type","message"},"request_id"}`. */
export function apiError(status: number, type: string, message: string, headers?: Record<string, string>): ScriptedReply {
  return { status, headers, body: { type: 'error', error: { type, message }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' } };
}
