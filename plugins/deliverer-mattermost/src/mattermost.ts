// mattermost: Mattermost REST API v4. One post per chunk (POST /api/v4/posts),
// optionally as a reply in a thread (root_id); Mattermost renders markdown itself, so answers go out as
// written.
import {
  classifyHttpStatus,
  definePlatform,
  deliveryKey,
  extraValue,
  joinUrl,
  platformOptionsSchema,
  type HttpResponse,
  type PlatformFailure,
  type PlatformOptions,
} from '@hookwise/kit/platform';

export interface PostsApiOptions extends PlatformOptions {
  /** The Mattermost server, e.g. https://chat.example.com. */
  api_base: string;
  token: string;
}

/** Mattermost's maximum post length (PostMessageMaxRunesV2); the kit counts UTF-16 units, which is stricter. */
export const MESSAGE_LIMIT = 16383;
/** Mattermost's default API rate limit: 10 requests per second per session (RateLimitSettings.PerSec). */
export const PACE_MS = 100;
/** Channel and post ids: 26 lower-case letters and digits. */
const MM_ID = /^[a-z0-9]{26}$/;

/** Mattermost errors: `{id, message, detailed_error, request_id, status_code}`. */
export function checkPostsApiResponse(res: HttpResponse): PlatformFailure | undefined {
  if (res.status < 300) return undefined;
  const body = (res.json ?? {}) as { id?: string; message?: string; request_id?: string };
  const message = `HTTP ${res.status}${body.id ? ` ${body.id}` : ''}: ${body.message ?? res.text.slice(0, 200)}${body.request_id ? ` [request_id ${body.request_id}]` : ''}`;
  if (res.status === 401) return { kind: 'auth', message };
  // 403 on a post means the account may not write to that channel (not a member, read-only channel).
  if (res.status === 403 || res.status === 404 || (res.status === 400 && /channel/i.test(`${body.id} ${body.message}`))) {
    return { kind: 'target', message: `${message} (the bot must be a member of the channel; chat_id is the channel id, not its name)` };
  }
  return classifyHttpStatus(res, message.replace(/^HTTP \d+:? ?/, ''));
}

export const mattermostPlatform = definePlatform<PostsApiOptions>({
  id: 'mattermost',
  aliases: ['platform_08'],
  title: 'Mattermost',
  description: 'Posts answers to a Mattermost channel, optionally as a thread reply.',
  limit: MESSAGE_LIMIT,
  maxParts: 10,
  paceMs: PACE_MS,
  targets: {
    format: 'a channel id: 26 lower-case letters and digits (Channel > View Info), not the channel name',
    check: (target, { extra }) => {
      if (!MM_ID.test(target)) return 'it is not a channel id';
      const root = extraValue(extra, 'root_id', 'thread_id');
      return root === undefined || MM_ID.test(root)
        ? undefined
        : `deliver_extra.root_id ${JSON.stringify(root.slice(0, 40))} is not a post id (26 lower-case letters and digits)`;
    },
  },
  optionsSchema: platformOptionsSchema({
    // No default: Mattermost is self-hosted.
    properties: {
      token: { type: 'string', minLength: 10, description: 'Bot access token or personal access token.' },
      home_channel: { type: 'string', pattern: '^[a-z0-9]{26}$', description: 'Default channel id (26 characters, Channel > View Info).' },
    },
    required: ['token'],
  }),
  secrets: (o) => [o.token],
  credentialsHint: 'check platforms.mattermost.token (System Console > Integrations > Bot Accounts, or a personal access token)',
  request: (chunk, o) => {
    const rootId = extraValue(chunk.extra, 'root_id', 'thread_id');
    return {
      method: 'POST',
      url: joinUrl(o.api_base, '/api/v4/posts'),
      bearer: o.token,
      // pending_post_id: the server answers a repeated one with the post it already created instead of a second
      // post, so a retried part is posted once.
      json: { channel_id: chunk.target, message: chunk.text, ...(rootId ? { root_id: rootId } : {}), pending_post_id: `hookwise:${deliveryKey(chunk)}` },
    };
  },
  // Conversations: an outgoing webhook names neither the post it answers nor its thread (no root_id), so the
  // source's replies point at the channel (`byChat`: each answer is also recorded as the channel's latest) and the
  // answer goes back into that channel, in the thread the route's deliver_extra.root_id names, if any.
  conversation: {
    byChat: true,
    replyExtra: (to, extra) => ({ ...extra, ...(extra.chat_id !== undefined ? { chat_id: to.chat } : {}) }),
  },
  checkResponse: checkPostsApiResponse,
  // Create a post: 201 with the Post object.
  success: { describe: 'the created post with its id', test: (res) => typeof (res.json as { id?: unknown } | undefined)?.id === 'string' },
  messageId: (res) => (res.json as { id?: string } | undefined)?.id,
  async start({ call, options, logger }) {
    const res = await call({ method: 'GET', url: joinUrl(options.api_base, '/api/v4/users/me'), bearer: options.token });
    logger.info(`mattermost (Mattermost): connected as @${(res.json as { username?: string } | undefined)?.username ?? 'unknown'}`);
  },
});
