// platform_02: Discord. Either a bot token (POST /api/v10/channels/{id}/messages, `Authorization: Bot`)
// or a channel webhook URL (no target needed). 2000 characters per message; mentions in agent text are
// never pinged (allowed_mentions.parse = []), so a payload cannot make the bot @everyone a server.
import { classifyHttpStatus, definePlatform, joinUrl, platformOptionsSchema, retryAfterFromHeaders, type HttpResponse, type PlatformFailure, type PlatformOptions } from '@hookwise/kit';

export interface ChannelApiOptions extends PlatformOptions {
  api_base: string;
  token?: string;
  webhook_url?: string;
}

export const DEFAULT_API_BASE = 'https://discord.com';
export const MESSAGE_LIMIT = 2000;
const NO_PINGS = { parse: [] as string[] };

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

export const channelApiPlatform = definePlatform<ChannelApiOptions>({
  id: 'platform_02',
  title: 'Discord',
  description: 'Sends answers to a Discord channel with a bot token or a channel webhook URL.',
  limit: MESSAGE_LIMIT,
  optionsSchema: platformOptionsSchema({
    apiBase: DEFAULT_API_BASE,
    properties: {
      token: { type: 'string', minLength: 20, description: 'Bot token (Developer Portal > Bot > Reset Token).' },
      webhook_url: { type: 'string', pattern: '^https?://', description: 'Channel webhook URL (Channel settings > Integrations > Webhooks).' },
    },
  }),
  secrets: (o) => [o.token, o.webhook_url, o.webhook_url?.split('/').pop()],
  credentialsHint: 'check platforms.platform_02.token (Developer Portal > Bot) or platforms.platform_02.webhook_url (the webhook may have been deleted)',
  configProblems: (o) => (o.token || o.webhook_url ? [] : ['set token (bot) or webhook_url (channel webhook)']),
  needsTarget: (o) => !o.webhook_url,
  request: (chunk, o) =>
    o.webhook_url
      ? { method: 'POST', url: webhookUrl(o), json: { content: chunk.text, allowed_mentions: NO_PINGS } }
      : {
          method: 'POST',
          url: joinUrl(o.api_base, `/api/v10/channels/${encodeURIComponent(chunk.target)}/messages`),
          headers: { authorization: `Bot ${o.token}` },
          json: { content: chunk.text, allowed_mentions: NO_PINGS },
        },
  checkResponse: checkChannelApiResponse,
  messageId: (res) => (res.json as { id?: string } | undefined)?.id,
  async start({ call, options, logger }) {
    if (options.webhook_url) {
      const res = await call({ method: 'GET', url: options.webhook_url });
      logger.info(`platform_02 (Discord): webhook '${(res.json as { name?: string }).name ?? '?'}' is valid`);
      return;
    }
    const res = await call({ method: 'GET', url: joinUrl(options.api_base, '/api/v10/users/@me'), headers: { authorization: `Bot ${options.token}` } });
    logger.info(`platform_02 (Discord): connected as ${(res.json as { username?: string }).username ?? 'unknown'}`);
  },
});
