// Sends Chat Completions requests through the kit's model request (timeout, retries on 429/5xx honouring
// Retry-After); says what is OpenAI-specific: the Bearer header, the error body and which failures are final.
import { HookwiseError } from '@hookwise/core';
import { postModelRequest, retryAfterSecondsOf, type ModelClientOptions, type ModelErrorResponse } from '@hookwise/agent-kit';
import type { ChatErrorBody, ChatRequest, ChatResponse } from './chat-wire';

/** The shared model-client options; the key is sent as `Authorization: Bearer` (local servers often need none). */
export type ChatClientOptions = ModelClientOptions;

export class ChatCompletionsClient {
  readonly url: string;

  constructor(private readonly options: ChatClientOptions) {
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  }

  create(body: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    const { apiKey } = this.options;
    return postModelRequest(body, signal, {
      url: this.url,
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      timeoutMs: this.options.timeoutMs,
      maxRetries: this.options.maxRetries,
      logger: this.options.logger,
      secrets: [apiKey],
      label: 'model server',
      sleep: this.options.sleep,
      parse: (json) => {
        const parsed = json as ChatResponse | undefined;
        if (!parsed || !Array.isArray(parsed.choices) || !parsed.choices[0]?.message) throw new Error('no choices[0].message');
        return parsed;
      },
      classify: (res, scrub) => this.failure(res, scrub),
    });
  }

  private failure(res: ModelErrorResponse, scrub: (text: string) => string): HookwiseError {
    const { message, code } = describeErrorBody(res);
    const base = scrub(`model server answered ${res.status}${message ? `: ${message}` : ''}`);
    // A 429 for an exhausted quota or balance will not clear by waiting.
    const quota = code === 'insufficient_quota' || code === 'credit_balance_exhausted';
    if ((res.status === 429 && !quota) || res.status >= 500) {
      return new HookwiseError('HW_E_AGENT', base, { retryable: true, retryAfterSeconds: retryAfterSecondsOf(res.headers), details: { status: res.status } });
    }
    let hint = '';
    if (res.status === 401 || res.status === 403) hint = `; check the API key in the environment variable ${this.options.apiKeyEnv} (agent.api_key_env)`;
    else if (res.status === 404) hint = `; check agent.base_url (${this.options.baseUrl}) and agent.model`;
    else if (quota) hint = '; the account has no quota or credit left';
    else if (res.status === 400) hint = '; check agent.model, agent.max_tokens and agent.temperature';
    return new HookwiseError('HW_E_AGENT', `${base}${hint}`, { retryable: false, details: { status: res.status } });
  }
}

/** `error.message` and `error.code` of an error body; compatible servers vary, so every field is optional. */
function describeErrorBody(res: ModelErrorResponse): { message: string; code?: string } {
  let message = res.text.trim().slice(0, 500);
  let code: string | undefined;
  const body = res.json as ChatErrorBody | undefined;
  if (body && typeof body === 'object') {
    if (typeof body.error === 'string') message = body.error;
    else if (body.error && typeof body.error === 'object') {
      message = body.error.message ?? message;
      code = body.error.code ?? body.error.type ?? undefined;
    } else if (typeof body.message === 'string') message = body.message;
  }
  return { message, code };
}
