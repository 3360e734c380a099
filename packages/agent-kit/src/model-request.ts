// One JSON POST to a model API with a per-request timeout, retried on what the provider calls temporary
// (429, overload, 5xx, network errors) after the wait its Retry-After asks for, else after a growing backoff.
import { HookwiseError, SecretScrubber, errorMessage, type PluginContext, type PluginLogger } from '@hookwise/core';
import { retryAfterFromHeaders, sleep as abortableSleep } from '@hookwise/kit';

/** A non-2xx answer, read once, for the provider's classifier. */
export interface ModelErrorResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  json: unknown;
}

/** What a model API client needs, the same for every API runner (openai, anthropic). */
export interface ModelClientOptions {
  baseUrl: string;
  /** Absent when the environment variable is unset or empty (local servers often need none). */
  apiKey?: string;
  apiKeyEnv: string;
  timeoutMs: number;
  maxRetries: number;
  logger: PluginLogger;
  /** Waits between retries; replaceable so tests can see the delays without waiting them out. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** The options every API runner shares (`base_url`, `api_key_env`, `timeout_seconds`, `max_retries`). */
export interface ModelRunnerOptions {
  base_url: string;
  api_key_env: string;
  timeout_seconds: number;
  max_retries: number;
}

/**
 * A runner's client options: the API key read from `api_key_env` and redacted from every log line, and a warning
 * when it is unset saying what follows (`withoutKey`: e.g. "the Anthropic API will answer 401").
 */
export function modelClientOptions(
  options: ModelRunnerOptions,
  ctx: Pick<PluginContext, 'env' | 'redact' | 'logger'>,
  withoutKey: string,
  sleep?: ModelClientOptions['sleep'],
): ModelClientOptions {
  const apiKey = ctx.env[options.api_key_env] || undefined;
  ctx.redact(apiKey);
  if (!apiKey) ctx.logger.warn(`${options.api_key_env} is not set: ${withoutKey}`);
  return {
    baseUrl: options.base_url,
    apiKey,
    apiKeyEnv: options.api_key_env,
    timeoutMs: options.timeout_seconds * 1000,
    maxRetries: options.max_retries,
    logger: ctx.logger,
    sleep,
  };
}

export interface ModelRequestOptions<T> {
  url: string;
  /** Everything but content-type and accept, credentials included (they never reach an error message). */
  headers: Record<string, string>;
  timeoutMs: number;
  /** Retries after the first attempt. */
  maxRetries: number;
  logger: PluginLogger;
  /** Values scrubbed from every error message (the API key). */
  secrets?: readonly (string | undefined)[];
  /** Checks a 2xx body and returns it typed; throws an Error saying what is wrong with it. */
  parse(json: unknown): T;
  /** The error for a non-2xx answer; `retryable` decides whether another attempt follows. */
  classify(res: ModelErrorResponse, scrub: (text: string) => string): HookwiseError;
  /** What the answering side is called in messages ("model server", "Anthropic API"). */
  label: string;
  /** Replaces the wait between retries (tests see the delays without waiting them out). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

// Longer waits than this are not sat out inside one job: the error goes to the worker, with the hint, instead.
const MAX_INLINE_WAIT_MS = 60_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;

export async function postModelRequest<T>(body: unknown, signal: AbortSignal, options: ModelRequestOptions<T>): Promise<T> {
  const wait = options.sleep ?? abortableSleep;
  for (let attempt = 0; ; attempt++) {
    const outcome = await attemptOnce(body, signal, options);
    if ('value' in outcome) return outcome.value;
    const { error } = outcome;
    if (!error.retryable || attempt >= options.maxRetries) throw error;
    const delay = outcome.waitMs ?? Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt);
    if (delay > MAX_INLINE_WAIT_MS) throw error;
    options.logger.warn(`${options.label} request failed (${error.message}); retry ${attempt + 1}/${options.maxRetries} in ${Math.round(delay)} ms`);
    try {
      await wait(delay, signal);
    } catch {
      throw stopped(signal, options.label);
    }
  }
}

async function attemptOnce<T>(
  body: unknown,
  signal: AbortSignal,
  options: ModelRequestOptions<T>,
): Promise<{ value: T } | { error: HookwiseError; waitMs?: number }> {
  const scrubber = new SecretScrubber(options.secrets);
  const scrub = (text: string) => scrubber.scrub(text);
  let res: Response;
  try {
    res = await fetch(options.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...options.headers },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]),
    });
  } catch (err) {
    if (signal.aborted) throw stopped(signal, options.label);
    const timedOut = err instanceof Error && err.name === 'TimeoutError';
    const what = timedOut
      ? `no answer within timeout_seconds (${options.timeoutMs / 1000}s)`
      : `cannot reach ${describe(options.url)}: ${errorMessage((err as { cause?: unknown }).cause ?? err)}`;
    return { error: new HookwiseError('HW_E_AGENT', scrub(`${options.label} request failed: ${what}`), { retryable: true, cause: err }) };
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    if (signal.aborted) throw stopped(signal, options.label);
    return {
      error: new HookwiseError('HW_E_AGENT', `${options.label} request failed: the answer was cut off (${errorMessage(err)})`, { retryable: true, cause: err }),
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (res.status >= 200 && res.status < 300) {
    try {
      return { value: options.parse(json) };
    } catch (err) {
      return {
        error: new HookwiseError(
          'HW_E_AGENT',
          scrub(
            `the ${options.label} at ${describe(options.url)} answered ${res.status} with a body that is not what it should be (${errorMessage(err)}); check agent.base_url`,
          ),
          { retryable: false },
        ),
      };
    }
  }
  if (res.status >= 300 && res.status < 400) {
    return {
      error: new HookwiseError(
        'HW_E_AGENT',
        `the ${options.label} at ${describe(options.url)} answered with a redirect (${res.status}), which is not followed: set agent.base_url to the address it redirects to`,
        { retryable: false },
      ),
    };
  }
  const error = options.classify({ status: res.status, headers: res.headers, text, json }, scrub);
  const hinted = retryAfterFromHeaders(res.headers);
  return { error, waitMs: hinted === undefined ? undefined : Math.round(hinted * 1000) };
}

/** The Retry-After hint of an answer, as HookwiseError's retryAfterSeconds (whole seconds, rounded up). */
export function retryAfterSecondsOf(headers: Headers): number | undefined {
  const hinted = retryAfterFromHeaders(headers);
  return hinted === undefined ? undefined : Math.ceil(hinted);
}

function stopped(signal: AbortSignal, label: string): HookwiseError {
  return new HookwiseError('HW_E_AGENT', `${label} request stopped: ${errorMessage(signal.reason ?? 'aborted')}`, { retryable: true, cause: signal.reason });
}

/** origin and path: a query string may carry a key. */
function describe(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return url;
  }
}
