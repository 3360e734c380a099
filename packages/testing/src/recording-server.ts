// A local HTTP server that records every request it receives and answers with scripted replies: the
// stand-in for a third-party API in wire-format tests (listens on 127.0.0.1, port 0).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path with query string, as sent. */
  url: string;
  path: string;
  query: URLSearchParams;
  /** Lower-case header names. */
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Parsed body when it is JSON, else undefined. */
  json: unknown;
  /** Parsed body when it is form-encoded, else undefined. */
  form?: Record<string, string>;
}

export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as application/json. */
  json?: unknown;
  /** Sent as-is (text/plain unless headers say otherwise). */
  body?: string;
}

export type Responder = (req: RecordedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>;

export interface RecordingServer {
  /** http://127.0.0.1:<port> */
  url: string;
  requests: RecordedRequest[];
  /** Replies used, first in first out, before the default responder. */
  queue(...replies: ScriptedReply[]): void;
  close(): Promise<void>;
}

function parse(req: http.IncomingMessage, body: string): RecordedRequest {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  let json: unknown;
  let form: Record<string, string> | undefined;
  const type = req.headers['content-type'] ?? '';
  if (type.includes('json')) {
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
  }
  if (type.includes('application/x-www-form-urlencoded')) form = Object.fromEntries(new URLSearchParams(body));
  return { method: req.method ?? 'GET', url: req.url ?? '/', path: url.pathname, query: url.searchParams, headers: req.headers, body, json, form };
}

export async function startRecordingServer(responder: Responder = () => ({ status: 200, json: {} })): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const queued: ScriptedReply[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const recorded = parse(req, Buffer.concat(parts).toString('utf8'));
      const index = requests.push(recorded) - 1;
      void (async () => {
        try {
          const reply = queued.shift() ?? (await responder(recorded, index));
          const headers: Record<string, string> = { ...reply.headers };
          let payload = reply.body ?? '';
          if (reply.json !== undefined) {
            headers['content-type'] ??= 'application/json';
            payload = JSON.stringify(reply.json);
          } else {
            headers['content-type'] ??= 'text/plain';
          }
          res.writeHead(reply.status ?? 200, headers).end(payload);
        } catch (err) {
          res.writeHead(500, { 'content-type': 'text/plain' }).end(`recording server responder threw: ${String(err)}`);
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    queue: (...replies) => void queued.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
