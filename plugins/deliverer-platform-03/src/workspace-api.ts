// platform_03: Slack. Either a bot token (chat.postMessage, `{channel, text}`; HTTP 200 with `ok:false` is
// an error) or an incoming-webhook URL (posts to the channel it was created for; answers "ok" as text).
import { classifyHttpStatus, definePlatform, joinUrl, platformOptionsSchema, retryAfterFromHeaders, type HttpResponse, type PlatformFailure, type PlatformOptions } from '@hookwise/kit';

export interface WorkspaceApiOptions extends PlatformOptions {
  api_base: string;
  token?: string;
  webhook_url?: string;
}

export const DEFAULT_API_BASE = 'https://slack.com';
/** Slack truncates text past 40,000 characters and asks for at most 4,000 per message for readability. */
export const MESSAGE_LIMIT = 4000;

const AUTH_ERRORS = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired', 'no_permission', 'missing_scope', 'not_allowed_token_type', 'ekm_access_denied', 'invalid_token', 'no_service', 'no_service_id', 'no_team', 'team_disabled']);
const TARGET_ERRORS = new Set(['channel_not_found', 'not_in_channel', 'is_archived', 'channel_is_archived', 'restricted_action', 'restricted_action_read_only_channel', 'cannot_reply_to_message', 'user_not_found', 'action_prohibited', 'posting_to_general_channel_denied']);
const TRANSIENT_ERRORS = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'ratelimited']);

function classifyCode(code: string, res: HttpResponse): PlatformFailure {
  const message = `${code}${res.status !== 200 ? ` (HTTP ${res.status})` : ''}`;
  if (res.status === 429 || code === 'ratelimited') return { kind: 'rate_limited', message, retryAfterSeconds: retryAfterFromHeaders(res.headers) };
  if (AUTH_ERRORS.has(code)) return { kind: 'auth', message };
  if (TARGET_ERRORS.has(code)) return { kind: 'target', message };
  if (TRANSIENT_ERRORS.has(code) || res.status >= 500) return { kind: 'unavailable', message, retryAfterSeconds: retryAfterFromHeaders(res.headers) };
  return { kind: 'rejected', message };
}

/** Web API: `{ok:false, error:"channel_not_found"}` with HTTP 200; webhooks: plain-text codes with 4xx. */
export function checkWorkspaceResponse(res: HttpResponse): PlatformFailure | undefined {
  const body = res.json as { ok?: boolean; error?: string } | undefined;
  if (body && typeof body === 'object' && body.ok === false) return classifyCode(body.error ?? 'unknown_error', res);
  if (res.status >= 300) {
    const code = res.text.trim();
    return /^[a-z_]+$/.test(code) ? classifyCode(code, res) : classifyHttpStatus(res);
  }
  return undefined;
}

export const workspaceApiPlatform = definePlatform<WorkspaceApiOptions>({
  id: 'platform_03',
  title: 'Slack',
  description: 'Sends answers to a Slack channel with a bot token (chat.postMessage) or an incoming-webhook URL.',
  limit: MESSAGE_LIMIT,
  optionsSchema: platformOptionsSchema({
    apiBase: DEFAULT_API_BASE,
    properties: {
      token: { type: 'string', minLength: 10, description: 'Bot User OAuth Token (xoxb-...) with the chat:write scope.' },
      webhook_url: { type: 'string', pattern: '^https?://', description: 'Incoming-webhook URL (https://hooks.slack.com/services/...).' },
    },
  }),
  secrets: (o) => [o.token, o.webhook_url, o.webhook_url ? new URL(o.webhook_url).pathname : undefined],
  credentialsHint: 'check platforms.platform_03.token (OAuth & Permissions > Bot User OAuth Token, scope chat:write) or platforms.platform_03.webhook_url',
  configProblems: (o) => (o.token || o.webhook_url ? [] : ['set token (bot token, xoxb-...) or webhook_url (incoming webhook)']),
  needsTarget: (o) => !o.webhook_url,
  request: (chunk, o) =>
    o.webhook_url
      ? { method: 'POST', url: o.webhook_url, json: { text: chunk.text } }
      : {
          method: 'POST',
          url: joinUrl(o.api_base, '/api/chat.postMessage'),
          bearer: o.token,
          headers: { 'content-type': 'application/json; charset=utf-8' },
          json: { channel: chunk.target, text: chunk.text },
        },
  checkResponse: checkWorkspaceResponse,
  messageId: (res) => (res.json as { ts?: string } | undefined)?.ts,
  async start({ call, options, logger }) {
    if (options.webhook_url) {
      // A webhook has no read-only endpoint: checking it would post a message.
      logger.info('platform_03 (Slack): using an incoming webhook; it is checked on the first delivery');
      return;
    }
    const res = await call({ method: 'POST', url: joinUrl(options.api_base, '/api/auth.test'), bearer: options.token });
    const body = res.json as { team?: string; user?: string };
    logger.info(`platform_03 (Slack): connected as ${body.user ?? '?'} in ${body.team ?? '?'}`);
  },
});
