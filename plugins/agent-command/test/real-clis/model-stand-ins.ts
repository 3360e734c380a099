// Scripted model APIs for the real agent CLIs: each speaks its provider's documented streaming format, so that the
// real Claude Code and Codex run against them as against the real service. Anthropic Messages API SSE
// (message_start, content_block_start/delta/stop, message_delta with usage, message_stop; tool_use blocks for tool
// calls) and OpenAI Responses API SSE (response.created, response.output_item.added/done, response.output_text.delta,
// response.completed with usage; function_call items). Each request gets the next scripted turn, or a plain answer.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One model turn: an answer, a tool call (by a part of its name, found in the request's tools), or an API error. */
export type ModelTurn =
  | { text: string }
  | { tool: string; input: Record<string, unknown> }
  | { status: number; error: string }
  /** Codex: a stream that breaks before response.completed (Codex retries it: "Reconnecting... 1/5"). */
  | { cut: true }
  /** Claude: an obedient model that answers with what its last tool call returned (whatever the agent found). */
  | { echoToolResult: true }
  /**
   * Codex: a call of its freeform `exec` tool (JavaScript run by Codex, where MCP tools are `tools.<name>(args)`),
   * the code written from the request (which holds the earlier calls' outputs).
   */
  | { exec: (body: Record<string, unknown>) => string };

export interface ModelStandIn {
  /** http://127.0.0.1:<port> (Claude Code: ANTHROPIC_BASE_URL) or .../v1 (Codex: OPENAI_BASE_URL). */
  url: string;
  /** host:port, for the sandbox's network list. */
  host: string;
  /** Every model request's JSON body, in order. */
  requests: Array<Record<string, unknown>>;
  /** Headers of every model request (to check the key that came with it). */
  headers: http.IncomingHttpHeaders[];
  script(...turns: ModelTurn[]): void;
  close(): Promise<void>;
}

type Write = (res: http.ServerResponse, turn: ModelTurn, body: Record<string, unknown>) => void;

async function standIn(path: RegExp, write: Write, fallback: string): Promise<ModelStandIn> {
  const queue: ModelTurn[] = [];
  const requests: Array<Record<string, unknown>> = [];
  const headers: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      // Codex tries the Responses WebSocket first (a GET upgrade): refused, it streams over HTTP.
      if (req.method !== 'POST' || !path.test(req.url ?? '')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end('{"error":{"message":"not here"}}');
      }
      const body = JSON.parse(raw || '{}') as Record<string, unknown>;
      requests.push(body);
      headers.push(req.headers);
      const turn = queue.shift() ?? { text: fallback };
      if ('status' in turn) {
        res.writeHead(turn.status, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: turn.error } }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      write(res, turn, body);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    headers,
    script: (...turns) => void queue.push(...turns),
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

function sse(res: http.ServerResponse, type: string, data: Record<string, unknown>): void {
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

/**
 * The full name of the request's tool whose name contains `part` (`mcp__hookwise__github_add_labels`): in `tools`,
 * or where Codex lists them, an `additional_tools` item of the input.
 */
function toolName(body: Record<string, unknown>, part: string): string {
  const names = JSON.stringify([body.tools ?? [], body.input ?? []]).match(/"name":"[^"]+"/g) ?? [];
  const found = names.map((n) => n.slice(8, -1)).find((n) => n.includes(part));
  if (!found) throw new Error(`the CLI offered the model no tool named like '${part}'; it offered: ${names.join(', ')}`);
  return found;
}

/** The text of the last tool_result block of an Anthropic request's messages. */
export function lastToolResult(body: Record<string, unknown>): string {
  const blocks = ((body.messages ?? []) as Array<{ content: unknown }>).flatMap((m) => (Array.isArray(m.content) ? m.content : [])) as Array<{
    type?: string;
    content?: unknown;
  }>;
  const result = blocks.filter((b) => b.type === 'tool_result').pop();
  if (!result) return '';
  return typeof result.content === 'string' ? result.content : ((result.content ?? []) as Array<{ text?: string }>).map((c) => c.text ?? '').join('');
}

/** The text of the last custom_tool_call_output item of a Responses request's input (what Codex's `exec` printed). */
export function lastCustomToolOutput(body: Record<string, unknown>): string {
  const items = ((body.input ?? []) as Array<{ type?: string; output?: unknown }>).filter((i) => i.type === 'custom_tool_call_output');
  const output = items.pop()?.output;
  return typeof output === 'string' ? output : ((output ?? []) as Array<{ text?: string }>).map((c) => c.text ?? '').join('');
}

/** Anthropic Messages API, streaming (docs: "Streaming Messages"). */
export function anthropicStandIn(fallback = 'Done.'): Promise<ModelStandIn> {
  let n = 0;
  return standIn(
    /^\/v1\/messages(\?|$)/,
    (res, turn, body) => {
      const id = `msg_standin_${++n}`;
      sse(res, 'message_start', {
        message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, usage: { input_tokens: 21, output_tokens: 1 } },
      });
      if ('tool' in turn) {
        sse(res, 'content_block_start', {
          index: 0,
          content_block: { type: 'tool_use', id: `toolu_standin_${n}`, name: toolName(body, turn.tool), input: {} },
        });
        sse(res, 'content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(turn.input) } });
      } else {
        const text = 'text' in turn ? turn.text : 'echoToolResult' in turn ? lastToolResult(body) : '';
        sse(res, 'content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
        sse(res, 'content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
      }
      sse(res, 'content_block_stop', { index: 0 });
      sse(res, 'message_delta', { delta: { stop_reason: 'tool' in turn ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 7 } });
      sse(res, 'message_stop', {});
      res.end();
    },
    fallback,
  );
}

/** OpenAI Responses API, streaming (docs: "Streaming API responses"). */
export function responsesStandIn(fallback = 'Done.'): Promise<ModelStandIn> {
  let n = 0;
  return standIn(
    /^\/v1\/responses(\?|$)/,
    (res, turn, body) => {
      const id = `resp_standin_${++n}`;
      sse(res, 'response.created', { response: { id, status: 'in_progress', output: [] } });
      if ('cut' in turn) return void res.end(); // no response.completed: a broken stream
      let item: Record<string, unknown>;
      if ('tool' in turn) {
        item = {
          type: 'function_call',
          id: `fc_${n}`,
          call_id: `call_${n}`,
          name: toolName(body, turn.tool),
          arguments: JSON.stringify(turn.input),
          status: 'completed',
        };
        sse(res, 'response.output_item.added', { output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } });
      } else if ('exec' in turn) {
        // A custom (freeform) tool call: its input is raw text, streamed as custom_tool_call_input deltas.
        const input = turn.exec(body);
        item = { type: 'custom_tool_call', id: `ctc_${n}`, call_id: `call_${n}`, name: 'exec', input, status: 'completed' };
        sse(res, 'response.output_item.added', { output_index: 0, item: { ...item, input: '', status: 'in_progress' } });
        sse(res, 'response.custom_tool_call_input.delta', { output_index: 0, item_id: item.id, delta: input });
        sse(res, 'response.custom_tool_call_input.done', { output_index: 0, item_id: item.id, input });
      } else {
        const text = 'text' in turn ? turn.text : '';
        item = { type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
        sse(res, 'response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
        sse(res, 'response.output_text.delta', { output_index: 0, content_index: 0, item_id: item.id, delta: text });
      }
      sse(res, 'response.output_item.done', { output_index: 0, item });
      sse(res, 'response.completed', {
        response: {
          id,
          status: 'completed',
          output: [item],
          usage: {
            input_tokens: 30,
            input_tokens_details: { cached_tokens: 4 },
            output_tokens: 6,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 36,
          },
        },
      });
      res.end();
    },
    fallback,
  );
}
