// discord: Discord. Either a bot token (POST /api/v10/channels/{id}/messages,
// `Authorization: Bot`) or a channel webhook URL (no target needed). 2000 characters per message; mentions in
// agent text are never pinged (allowed_mentions.parse = []), so a payload cannot make the bot @everyone a
// server. Every request carries the User-Agent Discord's API reference asks for.
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
  checkResponse: checkChannelApiResponse,
  // Create Message (and Execute Webhook with ?wait=true) answer with the message object.
  success: { describe: 'the created message with its id', test: (res) => typeof (res.json as { id?: unknown } | undefined)?.id === 'string' },
  messageId: (res) => (res.json as { id?: string } | undefined)?.id,
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
