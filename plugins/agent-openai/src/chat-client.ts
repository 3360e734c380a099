// Sends Chat Completions requests with a per-request timeout, retrying 429/5xx/network errors as the server asks.
import { HookwiseError, errorMessage } from '@hookwise/core';
import type { PluginLogger as Logger } from '@hookwise/core';
import { retryAfterFromHeaders, sleep } from '@hookwise/kit';
import type { ChatErrorBody, ChatRequest, ChatResponse } from './chat-wire';

export interface ChatClientOptions {
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; local servers (Ollama, llama.cpp) often need none. */
  apiKey?: string;
  apiKeyEnv: string;
  timeoutMs: number;
  maxRetries: number;
  logger: Logger;
  /** Waits between retries; replaceable so tests can see the delays without waiting them out. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

// Longer waits than this are not sat out inside one job: the error goes to the worker with the hint instead.
const MAX_INLINE_WAIT_MS = 60_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;

export class ChatCompletionsClient {
  readonly url: string;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(private readonly options: ChatClientOptions) {
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.sleep = options.sleep ?? sleep;
  }

  async create(body: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    const { maxRetries, logger } = this.options;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(body, signal);
      if ('response' in outcome) return outcome.response;
      const { error, waitMs } = outcome;
      if (!error.retryable || attempt >= maxRetries) throw error;
      const delay = waitMs ?? Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt);
      if (delay > MAX_INLINE_WAIT_MS) throw error;
      logger.warn(`model request failed (${error.message}); retry ${attempt + 1}/${maxRetries} in ${Math.round(delay)} ms`);
      try {
        await this.sleep(delay, signal);
      } catch {
        throw this.aborted(signal);
      }
    }
  }

  private async attempt(body: ChatRequest, signal: AbortSignal): Promise<{ response: ChatResponse } | { error: HookwiseError; waitMs?: number }> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    let res: Response;
    try {
      res = await fetch(this.url, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.any([signal, AbortSignal.timeout(this.options.timeoutMs)]) });
    } catch (err) {
      if (signal.aborted) throw this.aborted(signal);
      const timedOut = err instanceof Error && err.name === 'TimeoutError';
      const what = timedOut ? `no answer within timeout_seconds (${this.options.timeoutMs / 1000}s)` : `cannot reach ${this.url}: ${errorMessage((err as { cause?: unknown }).cause ?? err)}`;
      return { error: new HookwiseError('HW_E_AGENT', `model request failed: ${what}`, { retryable: true, cause: err }) };
    }
    const text = await res.text().catch(() => '');
    if (res.ok) {
      try {
        const parsed = JSON.parse(text) as ChatResponse;
        if (!Array.isArray(parsed.choices) || !parsed.choices[0]?.message) throw new Error('no choices[0].message');
        return { response: parsed };
      } catch (err) {
        return { error: new HookwiseError('HW_E_AGENT', `the model server at ${this.url} answered ${res.status} with a body that is not a chat completion (${errorMessage(err)}); check agent.base_url`, { retryable: false }) };
      }
    }
    return this.failure(res, text);
  }

  private failure(res: Response, text: string): { error: HookwiseError; waitMs?: number } {
    const { message, code } = this.describeErrorBody(text);
    const base = `model server answered ${res.status}${message ? `: ${message}` : ''}`;
    const hinted = retryAfterFromHeaders(res.headers);
    const waitMs = hinted === undefined ? undefined : Math.round(hinted * 1000);
    const retryAfterSeconds = hinted === undefined ? undefined : Math.ceil(hinted);
    // A 429 for an exhausted quota or balance will not clear by waiting.
    const quota = code === 'insufficient_quota' || code === 'credit_balance_exhausted';
    if ((res.status === 429 && !quota) || res.status >= 500) {
      return { error: new HookwiseError('HW_E_AGENT', base, { retryable: true, retryAfterSeconds, details: { status: res.status } }), waitMs };
    }
    let hint = '';
    if (res.status === 401 || res.status === 403) hint = `; check the API key in the environment variable ${this.options.apiKeyEnv} (agent.api_key_env)`;
    else if (res.status === 404) hint = `; check agent.base_url (${this.options.baseUrl}) and agent.model`;
    else if (quota) hint = '; the account has no quota or credit left';
    else if (res.status === 400) hint = '; check agent.model, agent.max_tokens and agent.temperature';
    return { error: new HookwiseError('HW_E_AGENT', `${base}${hint}`, { retryable: false, details: { status: res.status } }) };
  }

  /** Pulls `error.message` and `error.code` out of an error body; never echoes the API key. */
  private describeErrorBody(text: string): { message: string; code?: string } {
    let message = text.trim().slice(0, 500);
    let code: string | undefined;
    try {
      const body = JSON.parse(text) as ChatErrorBody;
      if (typeof body.error === 'string') message = body.error;
      else if (body.error && typeof body.error === 'object') {
        message = body.error.message ?? message;
        code = body.error.code ?? body.error.type ?? undefined;
      } else if (typeof body.message === 'string') message = body.message;
    } catch {
      /* not JSON: keep the start of the text */
    }
    const key = this.options.apiKey;
    return { message: key ? message.split(key).join('[REDACTED]') : message, code };
  }

  private aborted(signal: AbortSignal): HookwiseError {
    return new HookwiseError('HW_E_AGENT', `model request stopped: ${errorMessage(signal.reason ?? 'aborted')}`, { retryable: true, cause: signal.reason });
  }
}
