// discord: Discord. Either a bot token (POST /api/v10/channels/{id}/messages,
// `Authorization: Bot`) or a channel webhook URL (no target needed). 2000 characters per message; mentions in
// agent text are never pinged (allowed_mentions.parse = []), so a payload cannot make the bot @everyone a
// server. Every request carries the User-Agent Discord's API reference asks for.
import { HookwiseError, type ApprovalDraft } from '@hookwise/core';
import { retryAfterFromHeaders, urlSecrets } from '@hookwise/kit';
import {
  classifyHttpStatus,
  definePlatform,
  idempotencyDigest,
  joinUrl,
  pathSegment,
  platformOptionsSchema,
  type HttpRequest,
  type HttpResponse,
  type OutgoingChunk,
  type PlatformFailure,
  type PlatformOptions,
} from '@hookwise/kit/platform';

export interface ChannelApiOptions extends PlatformOptions {
  api_base: string;
  token?: string;
  webhook_url?: string;
}

export const DEFAULT_API_BASE = 'https://discord.com';
export const MESSAGE_LIMIT = 2000;
const NO_PINGS = { parse: [] as string[] };
/** Channel message sends are limited to about 5 per 5 seconds per channel (rate-limit headers; Discord does not publish the number). */
export const CHANNEL_PACE_MS = 1000;
/** Channel ids are snowflakes: 64-bit integers written in decimal. */
const SNOWFLAKE = /^\d{17,20}$/;

const pkg = require('../package.json') as { version: string; repository?: { url?: string } };
/**
 * "DiscordBot ($url, $versionNumber)", as the API reference's User Agent section requires of every HTTP
 * client; the URL is the project's repository.
 */
export const USER_AGENT = `DiscordBot (${(pkg.repository?.url ?? 'https://example.invalid/hookwise').replace(/\.git$/, '')}, ${pkg.version})`;

interface ApiError {
  code?: number;
  message?: string;
  retry_after?: number;
  global?: boolean;
}

/** Discord errors: `{code, message}`; 429s add `retry_after` (seconds, may be fractional) and `global`. */
export function checkChannelApiResponse(res: HttpResponse, options: ChannelApiOptions): PlatformFailure | undefined {
  if (res.status < 300) return undefined;
  const body = (res.json ?? {}) as ApiError;
  const message = `HTTP ${res.status}${body.code !== undefined ? ` code ${body.code}` : ''}: ${body.message ?? res.text.slice(0, 200)}`;
  if (res.status === 429) {
    const scope = res.headers.get('x-ratelimit-scope') ?? (body.global ? 'global' : 'route');
    return { kind: 'rate_limited', message: `${message} (${scope} limit)`, retryAfterSeconds: body.retry_after ?? retryAfterFromHeaders(res.headers) };
  }
  // 10015 Unknown Webhook: the webhook was deleted, i.e. the credential is gone.
  if (res.status === 401 || body.code === 10015 || (res.status === 404 && options.webhook_url)) return { kind: 'auth', message };
  // 10003 Unknown Channel, 50001 Missing Access, 50013 Missing Permissions.
  if (res.status === 403 || res.status === 404 || body.code === 10003 || body.code === 50001 || body.code === 50013) return { kind: 'target', message };
  return classifyHttpStatus(res, message);
}

function webhookUrl(options: ChannelApiOptions): string {
  const url = new URL(options.webhook_url!);
  url.searchParams.set('wait', 'true'); // answer with the created message instead of 204
  return url.toString();
}

/**
 * Discord's nonce (at most 25 characters): one per part of one delivery to one destination, from route +
 * delivery id + destination, so a retried part is recognised by enforce_nonce.
 */
export function messageNonce(chunk: Pick<OutgoingChunk, 'route' | 'deliveryId' | 'destination' | 'index'>): string {
  return `${idempotencyDigest(chunk).slice(0, 20)}.${chunk.index}`.slice(0, 25);
}

/** Component types and button styles of https://discord.com/developers/docs/components/reference. */
const ACTION_ROW = 1;
const BUTTON = 2;
const SUCCESS = 3;
const DANGER = 4;

/**
 * Create Message with the draft's text and one Action Row holding Approve (Success, green) and Deny (Danger, red)
 * buttons; their `custom_id` (1-100 characters) is the draft's button data, which Discord sends back in the
 * MESSAGE_COMPONENT interaction (source-discord's pressOf). The legacy layout (content next to components, no
 * IS_COMPONENTS_V2 flag) keeps the text in `content`, where the flag would forbid it.
 *
 * Needs the bot token: buttons send their interaction to the application that posted the message, and Discord
 * drops the interactive components of a channel webhook made in the channel settings (not application-owned:
 * Execute Webhook's `components` note), so a webhook_url cannot post working buttons.
 */
export function discordApprovalDraft(draft: ApprovalDraft, target: string, o: ChannelApiOptions): HttpRequest {
  if (!o.token) {
    throw new HookwiseError(
      'HW_E_DELIVERY_AUTH',
      'approval drafts via discord need platforms.discord.token (a bot token of the application whose Interactions Endpoint URL is the discord source route): a channel webhook (webhook_url) cannot post buttons',
      { retryable: false },
    );
  }
  const button = (style: number, label: string, customId: string) => ({ type: BUTTON, style, label, custom_id: customId });
  return {
    method: 'POST',
    url: joinUrl(o.api_base, `/api/v10/channels/${pathSegment(target, 'discord (Discord)')}/messages`),
    headers: { authorization: `Bot ${o.token}`, 'user-agent': USER_AGENT },
    json: {
      content: draft.text.slice(0, MESSAGE_LIMIT),
      allowed_mentions: NO_PINGS,
      components: [{ type: ACTION_ROW, components: [button(SUCCESS, 'Approve', draft.approveData), button(DANGER, 'Deny', draft.denyData)] }],
      // One draft per job: a post retried after a lost answer returns the first message instead of a second draft.
      nonce: draftNonce(draft.jobId),
      enforce_nonce: true,
    },
  };
}

/** A decided draft: Edit Message (PATCH /channels/{channel.id}/messages/{message.id}) with the decision, no components. */
export function discordApprovalDecided(draft: { chat: string; messageId: string }, text: string, o: ChannelApiOptions): HttpRequest {
  const where = `/api/v10/channels/${pathSegment(draft.chat, 'discord (Discord)')}/messages/${pathSegment(draft.messageId, 'discord (Discord)')}`;
  return {
    method: 'PATCH',
    url: joinUrl(o.api_base, where),
    headers: { authorization: `Bot ${o.token}`, 'user-agent': USER_AGENT },
    json: { content: text.slice(0, MESSAGE_LIMIT), allowed_mentions: NO_PINGS, components: [] },
  };
}

/** The draft's nonce (at most 25 characters), from the job id. */
export function draftNonce(jobId: string): string {
  return `${idempotencyDigest({ route: 'approval', deliveryId: jobId }).slice(0, 20)}.a`;
}

export const discordPlatform = definePlatform<ChannelApiOptions>({
  id: 'discord',
  aliases: ['platform_02'],
  title: 'Discord',
  description: 'Sends answers to a Discord channel with a bot token or a channel webhook URL.',
  limit: MESSAGE_LIMIT,
  maxParts: 20,
  paceMs: CHANNEL_PACE_MS,
  targets: {
    format: 'a channel id (a snowflake: 17 to 20 digits, Developer Mode > right-click the channel > Copy Channel ID)',
    check: (target) => (SNOWFLAKE.test(target) ? undefined : 'it is not a channel id'),
  },
  optionsSchema: platformOptionsSchema({
    apiBase: DEFAULT_API_BASE,
    properties: {
      token: { type: 'string', minLength: 20, description: 'Bot token (Developer Portal > Bot > Reset Token).' },
      webhook_url: { type: 'string', pattern: '^https?://', description: 'Channel webhook URL (Channel settings > Integrations > Webhooks).' },
    },
  }),
  // The webhook's token is the last path segment, also when the URL carries a query string (?thread_id=...).
  secrets: (o) => [o.token, ...urlSecrets(o.webhook_url, 1)],
  credentialsHint: 'check platforms.discord.token (Developer Portal > Bot) or platforms.discord.webhook_url (the webhook may have been deleted)',
  configProblems: (o) => (o.token || o.webhook_url ? [] : ['set token (bot) or webhook_url (channel webhook)']),
  needsTarget: (o) => !o.webhook_url,
  request: (chunk, o): HttpRequest =>
    o.webhook_url
      ? { method: 'POST', url: webhookUrl(o), headers: { 'user-agent': USER_AGENT }, json: { content: chunk.text, allowed_mentions: NO_PINGS } }
      : {
          method: 'POST',
          url: joinUrl(o.api_base, `/api/v10/channels/${pathSegment(chunk.target, 'discord (Discord)')}/messages`),
          headers: { authorization: `Bot ${o.token}`, 'user-agent': USER_AGENT },
          // Create Message: with enforce_nonce, a second message with this nonce from the bot within a few
          // minutes returns the first instead of posting again (webhooks take no nonce).
          json: { content: chunk.text, allowed_mentions: NO_PINGS, nonce: messageNonce(chunk), enforce_nonce: true },
        },
  // Approvals: the draft with Approve / Deny buttons (bot token only). No `conversation` facet: a person's reply
  // in a channel reaches a bot only over the Gateway websocket (MESSAGE_CREATE), never as an HTTP interaction.
  approvalDraft: discordApprovalDraft,
  approvalDecided: discordApprovalDecided,
  checkResponse: checkChannelApiResponse,
  // Create Message (and Execute Webhook with ?wait=true) answer with the message object.
  success: { describe: 'the created message with its id', test: (res) => typeof (res.json as { id?: unknown } | undefined)?.id === 'string' },
  messageId: (res) => (res.json as { id?: string } | undefined)?.id,
  draftChat: (res) => (res.json as { channel_id?: string } | undefined)?.channel_id,
  async start({ call, options, logger }) {
    if (options.webhook_url) {
      const res = await call({ method: 'GET', url: options.webhook_url, headers: { 'user-agent': USER_AGENT } });
      logger.info(`discord (Discord): webhook '${(res.json as { name?: string }).name ?? '?'}' is valid`);
      return;
    }
    const res = await call({
      method: 'GET',
      url: joinUrl(options.api_base, '/api/v10/users/@me'),
      headers: { authorization: `Bot ${options.token}`, 'user-agent': USER_AGENT },
    });
    logger.info(`discord (Discord): connected as ${(res.json as { username?: string }).username ?? 'unknown'}`);
  },
});
