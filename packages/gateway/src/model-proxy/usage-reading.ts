// Reads the tokens of a model call from its response as it passes through the proxy: a JSON body, or the events of
// a streamed one (server-sent events). Anthropic Messages tells them in message_start (input, cache reads and
// writes) and message_delta (output, cumulative); OpenAI Chat Completions in its last chunk (asked for with
// stream_options.include_usage); OpenAI Responses in response.completed; Gemini in every chunk's usageMetadata
// (totals so far), its default stream being one JSON array read whole. Only events that carry usage are parsed.
import { geminiTokens } from './gemini-api';
import type { CallTokens } from './model-prices';

export type ModelApi = 'anthropic-messages' | 'openai-chat' | 'openai-responses' | 'gemini';

export interface ReadUsage {
  /** The model the response names (more exact than the request's: a dated release). */
  model?: string;
  tokens?: CallTokens;
}

type Json = Record<string, unknown>;

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const obj = (value: unknown): Json | undefined => (value && typeof value === 'object' ? (value as Json) : undefined);
const HAS_USAGE = /"usage(?:Metadata)?"\s*:\s*\{/;
const HAS_MODEL = /"model(?:Version)?"\s*:/;

export class UsageReader {
  private model?: string;
  /** Anthropic's fields as last told (message_delta's are cumulative, so a later value replaces an earlier one). */
  private anthropic: Record<string, number> = {};
  private tokens?: CallTokens;
  private pending = '';

  constructor(private readonly api: ModelApi) {}

  /** A whole JSON response body. */
  readBody(text: string): void {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return;
    }
    // Gemini's streamGenerateContent without alt=sse answers a JSON array of chunks.
    for (const item of Array.isArray(body) ? body : [body]) {
      const chunk = obj(item);
      if (chunk) this.readObject(chunk);
    }
  }

  /** A piece of a server-sent event stream, as it arrived. */
  readStream(piece: string): void {
    this.pending += piece;
    for (;;) {
      const end = this.pending.search(/\r?\n\r?\n/);
      if (end < 0) break;
      const event = this.pending.slice(0, end);
      this.pending = this.pending.slice(end).replace(/^\r?\n\r?\n/, '');
      this.readEvent(event);
    }
    // A stream that never ends its events must not grow without bound.
    if (this.pending.length > 4 * 1024 * 1024) this.pending = '';
  }

  /** What was read; call after the response ended. */
  result(): ReadUsage {
    if (this.pending.trim()) this.readEvent(this.pending);
    this.pending = '';
    if (this.api === 'anthropic-messages' && Object.keys(this.anthropic).length) {
      const a = this.anthropic;
      const cacheRead = a.cache_read_input_tokens ?? 0;
      const cacheWrite = a.cache_creation_input_tokens ?? 0;
      // Anthropic's input_tokens leave the cached ones out; ours count them in (AgentResult.usage).
      this.tokens = { input: (a.input_tokens ?? 0) + cacheRead + cacheWrite, output: a.output_tokens ?? 0, cacheRead, cacheWrite };
    }
    return { model: this.model, tokens: this.tokens };
  }

  private readEvent(event: string): void {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    // Most events are text deltas: they are passed on without a parse.
    if (!data.startsWith('{') || (!HAS_USAGE.test(data) && (this.model !== undefined || !HAS_MODEL.test(data)))) return;
    let parsed: Json | undefined;
    try {
      parsed = obj(JSON.parse(data));
    } catch {
      return;
    }
    if (!parsed) return;
    // Anthropic's message_start and OpenAI's response.* events wrap the message; the rest carry it at the top.
    const inner = obj(parsed.message) ?? obj(parsed.response);
    if (inner) this.readObject(inner);
    this.readObject(parsed);
  }

  private readObject(body: Json): void {
    if (this.api === 'gemini') {
      if (typeof body.modelVersion === 'string' && body.modelVersion) this.model ??= body.modelVersion;
      const metadata = obj(body.usageMetadata);
      if (metadata) this.tokens = geminiTokens(metadata);
      return;
    }
    if (typeof body.model === 'string' && body.model) this.model ??= body.model;
    const usage = obj(body.usage);
    if (!usage) return;
    if (this.api === 'anthropic-messages') {
      for (const key of ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens']) {
        const value = num(usage[key]);
        if (value !== undefined) this.anthropic[key] = value;
      }
      return;
    }
    if (this.api === 'openai-chat') {
      const cached = num(obj(usage.prompt_tokens_details)?.cached_tokens) ?? 0;
      this.tokens = { input: num(usage.prompt_tokens) ?? 0, output: num(usage.completion_tokens) ?? 0, cacheRead: cached, cacheWrite: 0 };
      return;
    }
    const cached = num(obj(usage.input_tokens_details)?.cached_tokens) ?? 0;
    this.tokens = { input: num(usage.input_tokens) ?? 0, output: num(usage.output_tokens) ?? 0, cacheRead: cached, cacheWrite: 0 };
  }
}
