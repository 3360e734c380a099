// Scripted stand-ins of the model providers for the model proxy's tests: real HTTP servers on port 0 that speak
// Anthropic Messages, OpenAI Chat Completions / Responses and Google's Gemini API as documented (JSON, and
// server-sent events when the request says stream: true or, for Gemini, ?alt=sse), with known usage, and record every
// request they receive with its path, query and headers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface StandIn {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** The usage every stand-in answer carries. */
export const ANTHROPIC_USAGE = { input_tokens: 1000, output_tokens: 500, cache_read_input_tokens: 2000, cache_creation_input_tokens: 400 };
export const OPENAI_USAGE = { prompt: 1200, completion: 300, cached: 1000 };
/** Gemini's UsageMetadata with the fields its reference documents (promptTokenCount includes the cached tokens). */
export const GEMINI_USAGE = {
  promptTokenCount: 1200,
  candidatesTokenCount: 250,
  cachedContentTokenCount: 800,
  thoughtsTokenCount: 150,
  totalTokenCount: 1600,
  promptTokensDetails: [{ modality: 'TEXT', tokenCount: 1200 }],
  cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 800 }],
};

const sse = (events: Array<[string | undefined, unknown]>) =>
  events.map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`).join('');

function anthropicAnswer(body: Record<string, unknown>): { type: string; text: string } {
  const model = String(body.model ?? 'claude-sonnet-4-5-20250929');
  if (body.stream !== true) {
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text: 'Hello from the stand-in' }],
      stop_reason: 'end_turn',
      usage: ANTHROPIC_USAGE,
    };
    return { type: 'application/json', text: JSON.stringify(message) };
  }
  const { output_tokens, ...input } = ANTHROPIC_USAGE;
  return {
    type: 'text/event-stream',
    text: sse([
      [
        'message_start',
        { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model, content: [], usage: { ...input, output_tokens: 1 } } },
      ],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
      ['ping', { type: 'ping' }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello from ' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'the stand-in' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens } }],
      ['message_stop', { type: 'message_stop' }],
    ]),
  };
}

function openaiChatAnswer(body: Record<string, unknown>): { type: string; text: string } {
  const model = String(body.model ?? 'gpt-4o-mini');
  const usage = {
    prompt_tokens: OPENAI_USAGE.prompt,
    completion_tokens: OPENAI_USAGE.completion,
    total_tokens: OPENAI_USAGE.prompt + OPENAI_USAGE.completion,
    prompt_tokens_details: { cached_tokens: OPENAI_USAGE.cached },
  };
  if (body.stream !== true) {
    const choice = { index: 0, message: { role: 'assistant', content: 'Hello from the stand-in' }, finish_reason: 'stop' };
    return { type: 'application/json', text: JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model, choices: [choice], usage }) };
  }
  const withUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const chunk = (delta: unknown, finish: string | null) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(withUsage ? { usage: null } : {}),
  });
  return {
    type: 'text/event-stream',
    text: sse([
      [undefined, chunk({ role: 'assistant', content: '' }, null)],
      [undefined, chunk({ content: 'Hello from the stand-in' }, null)],
      [undefined, chunk({}, 'stop')],
      ...(withUsage
        ? ([[undefined, { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model, choices: [], usage }]] as Array<[undefined, unknown]>)
        : []),
      [undefined, '[DONE]'],
    ]),
  };
}

function openaiResponsesAnswer(body: Record<string, unknown>): { type: string; text: string } {
  const model = String(body.model ?? 'gpt-5');
  const usage = {
    input_tokens: OPENAI_USAGE.prompt,
    input_tokens_details: { cached_tokens: OPENAI_USAGE.cached },
    output_tokens: OPENAI_USAGE.completion,
    total_tokens: OPENAI_USAGE.prompt + OPENAI_USAGE.completion,
  };
  const response = {
    id: 'resp_1',
    object: 'response',
    model,
    status: 'completed',
    output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello from the stand-in' }] }],
    usage,
  };
  if (body.stream !== true) return { type: 'application/json', text: JSON.stringify(response) };
  return {
    type: 'text/event-stream',
    text: sse([
      ['response.created', { type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress', output: [], usage: null } }],
      [
        'response.output_text.delta',
        { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hello from the stand-in' },
      ],
      ['response.completed', { type: 'response.completed', sequence_number: 2, response }],
    ]),
  };
}

/**
 * generateContent: one GenerateContentResponse. streamGenerateContent: chunks whose usageMetadata tells the totals so
 * far (the last one the call's), as server-sent events with ?alt=sse, else one JSON array (Google's default stream).
 */
function geminiAnswer(path: string): { type: string; text: string } {
  const model = /models\/([^/:]+):/.exec(path)?.[1] ?? 'gemini-2.5-flash';
  const chunk = (text: string, finishReason: string | undefined, usageMetadata: Record<string, unknown>) => ({
    candidates: [{ content: { parts: [{ text }], role: 'model' }, ...(finishReason && { finishReason }), index: 0 }],
    usageMetadata,
    modelVersion: model,
    responseId: 'gemini-response-1',
  });
  if (path.includes(':countTokens')) return { type: 'application/json', text: JSON.stringify({ totalTokens: 31 }) };
  if (!path.includes(':streamGenerateContent'))
    return { type: 'application/json', text: JSON.stringify(chunk('Hello from the stand-in', 'STOP', GEMINI_USAGE)) };
  const { promptTokenCount } = GEMINI_USAGE;
  const chunks = [
    chunk('Hello from ', undefined, { promptTokenCount, candidatesTokenCount: 3, totalTokenCount: promptTokenCount + 3 }),
    chunk('the stand-in', 'STOP', GEMINI_USAGE),
  ];
  if (path.includes('alt=sse')) return { type: 'text/event-stream', text: chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join('') };
  return { type: 'application/json', text: `[${chunks.map((c) => JSON.stringify(c, null, 2)).join('\n,\r\n')}]` };
}

/** Starts a stand-in that answers Anthropic's and OpenAI's paths (under any prefix); `status` makes it fail. */
export async function startModelStandIn(options: { status?: number; slowMs?: number } = {}): Promise<StandIn> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        // not JSON
      }
      const path = req.url ?? '/';
      received.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
      if (options.status) {
        res.writeHead(options.status, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { message: 'Incorrect API key provided: sk-real***1234', type: 'invalid_request_error' } }));
      }
      const answer = /\/models\/[^/]+:/.test(path)
        ? geminiAnswer(path)
        : path.includes('/messages')
          ? anthropicAnswer(body)
          : path.includes('/chat/completions')
            ? openaiChatAnswer(body)
            : path.includes('/responses')
              ? openaiResponsesAnswer(body)
              : { type: 'application/json', text: JSON.stringify({ object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model' }] }) };
      res.writeHead(200, { 'content-type': answer.type });
      // Google's default stream is JSON, but streamed: it too arrives in pieces.
      if (answer.type !== 'text/event-stream' && !path.includes(':streamGenerateContent')) return res.end(answer.text);
      // Streamed in pieces that cut events apart, as a real stream arrives.
      const pieces = answer.text.match(/[\s\S]{1,37}/g) ?? [];
      const next = () => {
        const piece = pieces.shift();
        if (piece === undefined) return res.end();
        res.write(piece);
        setTimeout(next, options.slowMs ?? 0);
      };
      next();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
