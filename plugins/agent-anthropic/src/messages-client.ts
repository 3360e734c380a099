// Sends Messages API requests through the kit's model request; says what is Anthropic's: the x-api-key and
// anthropic-version headers, the error body, and which error types are worth another attempt.
import { HookwiseError } from '@hookwise/core';
import { postModelRequest, retryAfterSecondsOf, type ModelClientOptions, type ModelErrorResponse } from '@hookwise/agent-kit';
import type { ErrorBody, MessagesRequest, MessagesResponse } from './messages-wire';

/** The API version this runner's wire format is written against. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** The shared model-client options; the key goes in the `x-api-key` header. */
export type MessagesClientOptions = ModelClientOptions;

// Temporary by their nature: throttling, Anthropic's own failures, overload (529), and time-outs.
const RETRYABLE_TYPES = new Set(['rate_limit_error', 'api_error', 'overloaded_error', 'timeout_error']);

export class MessagesClient {
  readonly url: string;

  constructor(private readonly options: MessagesClientOptions) {
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/v1/messages`;
  }

  create(body: MessagesRequest, signal: AbortSignal): Promise<MessagesResponse> {
    const { apiKey } = this.options;
    const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
    if (apiKey) headers['x-api-key'] = apiKey;
    return postModelRequest(body, signal, {
      url: this.url,
      headers,
      timeoutMs: this.options.timeoutMs,
      maxRetries: this.options.maxRetries,
      logger: this.options.logger,
      secrets: [apiKey],
      label: 'Anthropic API',
      sleep: this.options.sleep,
      parse: (json) => {
        const message = json as MessagesResponse | undefined;
        if (!message || typeof message !== 'object' || !Array.isArray(message.content)) throw new Error('no content array');
        return message;
      },
      classify: (res, scrub) => this.failure(res, scrub),
    });
  }

  private failure(res: ModelErrorResponse, scrub: (text: string) => string): HookwiseError {
    const body = (res.json && typeof res.json === 'object' ? res.json : {}) as ErrorBody;
    const type = body.error?.type;
    const message = body.error?.message ?? res.text.trim().slice(0, 500);
    const requestId = body.request_id ?? res.headers.get('request-id') ?? undefined;
    const base = scrub(
      `Anthropic API answered ${res.status}${type ? ` ${type}` : ''}${message ? `: ${message}` : ''}${requestId ? ` (request ${requestId})` : ''}`,
    );
    const details = { status: res.status, type, requestId };
    // The type decides where there is one (a 529 says overloaded_error); the status where there is none (a proxy's 502).
    const retryable = type ? RETRYABLE_TYPES.has(type) : res.status === 429 || res.status >= 500;
    if (retryable) return new HookwiseError('HW_E_AGENT', base, { retryable: true, retryAfterSeconds: retryAfterSecondsOf(res.headers), details });
    let hint = '';
    if (res.status === 401 || type === 'authentication_error')
      hint = `; check the API key in the environment variable ${this.options.apiKeyEnv} (agent.api_key_env)`;
    else if (res.status === 403 || type === 'permission_error') hint = `; the key in ${this.options.apiKeyEnv} may not use this model or resource`;
    else if (res.status === 404 || type === 'not_found_error') hint = `; check agent.model and agent.base_url (${this.options.baseUrl})`;
    else if (res.status === 413 || type === 'request_too_large') hint = "; the prompt is too large: shorten the route's prompt template";
    else if (type === 'billing_error') hint = '; the account has a billing problem';
    else if (res.status === 400 || type === 'invalid_request_error') hint = '; check agent.model, agent.max_tokens and agent.temperature';
    return new HookwiseError('HW_E_AGENT', `${base}${hint}`, { retryable: false, details });
  }
}
