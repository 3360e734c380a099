// The proxy's own refusals in each provider's error format, so that the agent's CLI shows the reason as it shows
// the provider's errors. `x-should-retry: false` tells the providers' SDKs not to retry them.
import type { ModelApi } from './usage-reading';

/** `key_refused`: the provider refused the gateway's own key; a 403, so that no CLI retries what only the operator can fix. */
export type RefusalKind = 'auth' | 'budget' | 'not_found' | 'upstream' | 'bad_request' | 'key_refused';

export interface ProxyAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const STATUS: Record<RefusalKind, number> = { auth: 401, budget: 402, not_found: 404, upstream: 502, bad_request: 400, key_refused: 403 };
const ANTHROPIC_TYPE: Record<RefusalKind, string> = {
  auth: 'authentication_error',
  budget: 'billing_error',
  not_found: 'not_found_error',
  upstream: 'api_error',
  bad_request: 'invalid_request_error',
  key_refused: 'permission_error',
};
const OPENAI_TYPE: Record<RefusalKind, string> = {
  auth: 'invalid_request_error',
  budget: 'insufficient_quota',
  not_found: 'invalid_request_error',
  upstream: 'server_error',
  bad_request: 'invalid_request_error',
  key_refused: 'invalid_request_error',
};

/** Google's canonical status names (google.rpc.Code) for the Gemini API's error format. */
const GOOGLE_STATUS: Record<RefusalKind, string> = {
  auth: 'UNAUTHENTICATED',
  budget: 'RESOURCE_EXHAUSTED',
  not_found: 'NOT_FOUND',
  upstream: 'UNAVAILABLE',
  bad_request: 'INVALID_ARGUMENT',
  key_refused: 'PERMISSION_DENIED',
};

/**
 * A refusal in Google's format, `{"error": {"code", "message", "status"}}`. The HTTP status is the proxy's own (a spent
 * budget is 402, not Google's 429 for RESOURCE_EXHAUSTED): Gemini CLI retries a 429 for minutes and may fall back to
 * another model, and a spent budget is not a rate limit.
 */
function geminiRefusal(kind: RefusalKind, message: string): ProxyAnswer {
  const status = STATUS[kind];
  return {
    status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ error: { code: status, message, status: GOOGLE_STATUS[kind] } }),
  };
}

/** A refusal in the format of the API the request was made to (Anthropic's when unknown). */
export function refusal(api: ModelApi | undefined, kind: RefusalKind, message: string): ProxyAnswer {
  if (api === 'gemini') return geminiRefusal(kind, message);
  const body =
    api === 'openai-chat' || api === 'openai-responses'
      ? {
          error: {
            message,
            type: OPENAI_TYPE[kind],
            code: kind === 'budget' ? 'budget_exceeded' : kind === 'auth' || kind === 'key_refused' ? 'invalid_api_key' : null,
            param: null,
          },
        }
      : { type: 'error', error: { type: ANTHROPIC_TYPE[kind], message } };
  return { status: STATUS[kind], headers: { 'content-type': 'application/json', 'x-should-retry': 'false' }, body: JSON.stringify(body) };
}
