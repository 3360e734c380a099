// A local stand-in for the Anthropic Messages API: answers from a script (bodies copied from the API's
// documentation) and records every request it got.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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

/** Replies are used in order; a request past the end of the script gets a 500 api_error naming the problem. */
export async function startMessagesServer(script: ScriptedReply[]): Promise<MessagesServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      const reply = script[requests.length - 1] ?? { status: 500, body: { type: 'error', error: { type: 'api_error', message: 'script exhausted' } } };
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', 'request-id': `req_test_${requests.length}`, ...reply.headers });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
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
