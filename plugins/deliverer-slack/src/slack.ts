// slack: Slack. Either a bot token (chat.postMessage, `{channel, text}`; HTTP 200 with
// `ok:false` is an error) or an incoming-webhook URL (posts to the channel it was created for; answers "ok"
// as text). The agent's markdown becomes mrkdwn with `& < >` escaped, so that `<!channel>`, `<!here>` or
// `<@U123>` in an answer can never ping anyone.
import { HookwiseError } from '@hookwise/core';
import { retryAfterFromHeaders, urlSecrets } from '@hookwise/kit';
import {
  classifyHttpStatus,
  definePlatform,
  joinUrl,
  markdownToMrkdwn,
  platformOptionsSchema,
  type HttpRequest,
  type HttpResponse,
  type PlatformFailure,
  type PlatformOptions,
} from '@hookwise/kit/platform';

export interface WorkspaceApiOptions extends PlatformOptions {
  api_base: string;
  token?: string;
  webhook_url?: string;
}

export const DEFAULT_API_BASE = 'https://slack.com';
/** Slack truncates text past 40,000 characters and asks for at most 4,000 per message for readability. */
export const MESSAGE_LIMIT = 4000;
/** chat.postMessage: "generally allows posting one message per second per channel" (rate limits page). */
export const CHANNEL_PACE_MS = 1000;
/** Conversation ids (C public, G private, D direct) and user ids (U, W: the app's direct message with them). */
const CONVERSATION_ID = /^[CDGUW][A-Z0-9]{8,20}$/;

const AUTH_ERRORS = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'no_permission',
  'missing_scope',
  'not_allowed_token_type',
  'ekm_access_denied',
  'invalid_token',
  'no_service',
  'no_service_id',
  'no_team',
  'team_disabled',
]);
const TARGET_ERRORS = new Set([
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'channel_is_archived',
  'restricted_action',
  'restricted_action_read_only_channel',
  'cannot_reply_to_message',
  'user_not_found',
  'action_prohibited',
  'posting_to_general_channel_denied',
]);
const TRANSIENT_ERRORS = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);
/** `ratelimited` is the Web API's HTTP 429 answer; `rate_limited` chat.postMessage's "posted too many messages". */
const RATE_ERRORS = new Set(['ratelimited', 'rate_limited']);

function classifyCode(code: string, res: HttpResponse): PlatformFailure {
  const message = `${code}${res.status !== 200 ? ` (HTTP ${res.status})` : ''}`;
  if (res.status === 429 || RATE_ERRORS.has(code)) return { kind: 'rate_limited', message, retryAfterSeconds: retryAfterFromHeaders(res.headers) };
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

/** The text Slack gets for one part: mrkdwn, with the three control characters escaped. */
export function slackText(markdown: string): string {
  return markdownToMrkdwn(markdown);
}

/** A thread's ts as Slack writes it ("1355517523.000005"); anything else is left out rather than sent. */
const THREAD_TS = /^\d{1,12}\.\d{1,9}$/;

function threadOf(extra: Record<string, string>): { thread_ts?: string } {
  const ts = extra.thread_ts;
  return ts !== undefined && THREAD_TS.test(ts) ? { thread_ts: ts } : {};
}

export const slackPlatform = definePlatform<WorkspaceApiOptions>({
  id: 'slack',
  aliases: ['platform_03'],
  title: 'Slack',
  description: 'Sends answers to a Slack channel with a bot token (chat.postMessage) or an incoming-webhook URL.',
  limit: MESSAGE_LIMIT,
  maxParts: 20,
  paceMs: CHANNEL_PACE_MS,
  targets: {
    format: "a conversation id such as C0123456789 (channel details > About, at the bottom), or a user id (U...) for the app's direct message",
    check: (target) => (CONVERSATION_ID.test(target) ? undefined : 'it is not a Slack conversation or user id (channel names are not accepted: they change)'),
  },
  optionsSchema: platformOptionsSchema({
    apiBase: DEFAULT_API_BASE,
    properties: {
      token: { type: 'string', minLength: 10, description: 'Bot User OAuth Token (xoxb-...) with the chat:write scope.' },
      webhook_url: { type: 'string', pattern: '^https?://', description: 'Incoming-webhook URL (https://hooks.slack.com/services/...).' },
    },
  }),
  // The webhook's secret is the last path segment of https://hooks.slack.com/services/T.../B.../<secret>.
  secrets: (o) => [o.token, ...urlSecrets(o.webhook_url, 1)],
  credentialsHint: 'check platforms.slack.token (OAuth & Permissions > Bot User OAuth Token, scope chat:write) or platforms.slack.webhook_url',
  configProblems: (o) => (o.token || o.webhook_url ? [] : ['set token (bot token, xoxb-...) or webhook_url (incoming webhook)']),
  needsTarget: (o) => !o.webhook_url,
  // link_names: false: plain "@channel" in an answer stays text (it is the default; said so that it stays so).
  request: (chunk, o): HttpRequest =>
    o.webhook_url
      ? { method: 'POST', url: o.webhook_url, json: { text: slackText(chunk.text), link_names: false } }
      : {
          method: 'POST',
          url: joinUrl(o.api_base, '/api/chat.postMessage'),
          bearer: o.token,
          headers: { 'content-type': 'application/json; charset=utf-8' },
          // thread_ts (deliver_extra): the answer goes into that thread, e.g. a conversation's.
          json: { channel: chunk.target, text: slackText(chunk.text), link_names: false, ...threadOf(chunk.extra) },
        },
  // Conversations: an answer goes into the thread the person wrote in (thread_ts of the answer they replied under).
  conversation: {
    // Into the thread: its root's ts (a person's message in a thread names its root as `thread`).
    replyExtra: (to, extra) => ({ ...extra, ...(extra.chat_id !== undefined ? { chat_id: to.chat } : {}), thread_ts: to.thread ?? to.messageId }),
  },
  // Approvals: chat.postMessage with a Block Kit actions block; a press comes back as an interactivity
  // block_actions payload (source-slack). An incoming webhook cannot say which message it posted: a token is needed.
  approvalDraft: (draft, target, o): HttpRequest => {
    if (!o.token) {
      throw new HookwiseError('HW_E_DELIVERY_AUTH', 'approval drafts via slack need platforms.slack.token (a bot token): an incoming webhook cannot', {
        retryable: false,
      });
    }
    const button = (text: string, action: string, value: string, style: string) => ({
      type: 'button',
      action_id: action,
      style,
      text: { type: 'plain_text', text },
      value,
    });
    return {
      method: 'POST',
      url: joinUrl(o.api_base, '/api/chat.postMessage'),
      bearer: o.token,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      json: {
        channel: target,
        text: slackText(draft.text),
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text: slackText(draft.text) } },
          {
            type: 'actions',
            block_id: 'hookwise_approval',
            elements: [button('Approve', 'hookwise_approve', draft.approveData, 'primary'), button('Deny', 'hookwise_deny', draft.denyData, 'danger')],
          },
        ],
      },
    };
  },
  // A decided draft: chat.update of the draft (its channel and ts) with the decision, its blocks without the buttons.
  approvalDecided: (draft, text, o): HttpRequest => ({
    method: 'POST',
    url: joinUrl(o.api_base, '/api/chat.update'),
    bearer: o.token,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    json: { channel: draft.chat, ts: draft.messageId, text: slackText(text), blocks: [{ type: 'section', text: { type: 'mrkdwn', text: slackText(text) } }] },
  }),
  checkResponse: checkWorkspaceResponse,
  // chat.postMessage answers {ok: true, channel, ts, message}; an incoming webhook answers the text "ok".
  success: {
    describe: 'ok: true with the message ts (a webhook: the text "ok")',
    test: (res, o) => {
      if (o.webhook_url) return res.text.trim() === 'ok';
      const body = res.json as { ok?: unknown; ts?: unknown } | undefined;
      return body?.ok === true && typeof body.ts === 'string';
    },
  },
  messageId: (res) => (res.json as { ts?: string } | undefined)?.ts,
  // A draft sent to a user id lands in the app's direct message channel (D...), which block_actions names.
  draftChat: (res) => (res.json as { channel?: string } | undefined)?.channel,
  async start({ call, options, logger }) {
    if (options.webhook_url) {
      // A webhook has no read-only endpoint: checking it would post a message.
      logger.info('slack (Slack): using an incoming webhook; it is checked on the first delivery');
      return;
    }
    const res = await call({ method: 'POST', url: joinUrl(options.api_base, '/api/auth.test'), bearer: options.token });
    const body = res.json as { team?: string; user?: string };
    logger.info(`slack (Slack): connected as ${body.user ?? '?'} in ${body.team ?? '?'}`);
  },
});
