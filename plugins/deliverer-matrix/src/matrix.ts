// matrix: the Matrix client-server API. Each chunk is an m.room.message (m.text, with
// the markdown rendered to org.matrix.custom.html) sent with PUT .../send/m.room.message/{txnId}; the
// transaction id is derived from route, delivery id and chunk index, so the homeserver drops a retried chunk
// it already has. A room alias (#room:server) is resolved through the room directory first.
import { retryAfterFromHeaders } from '@hookwise/kit';
import {
  classifyHttpStatus,
  definePlatform,
  deliveryKey,
  joinUrl,
  markdownToHtml,
  pathSegment,
  platformOptionsSchema,
  type HttpResponse,
  type OutgoingChunk,
  type PlatformFailure,
  type PlatformOptions,
  type PlatformRuntime,
  type SuccessRule,
} from '@hookwise/kit/platform';

export interface ClientServerOptions extends PlatformOptions {
  /** The homeserver's client-server API base, e.g. https://matrix.example.org. */
  api_base: string;
  token: string;
}

/**
 * Characters per message. A whole event may not exceed 65536 bytes; the text goes out twice (body and
 * formatted_body) and up to 3 bytes per character in UTF-8, so 8000 leaves room for HTML tags and escapes.
 */
export const MESSAGE_LIMIT = 8000;

/** Room ids: "!" and an opaque id (with ":server" before room version 12), printable ASCII. */
const ROOM_ID = /^![\x21-\x7e]{1,254}$/;
/** Room aliases: "#localpart:server". */
const ROOM_ALIAS = /^#[^\s:]{1,200}:[\x21-\x7e]{1,255}$/;
const LABEL = 'matrix (Matrix)';

/** The same chunk of the same delivery always gets the same id: a retry is deduplicated by the homeserver. */
export function transactionId(chunk: Pick<OutgoingChunk, 'route' | 'deliveryId' | 'index'> & { destination?: string }): string {
  return `hookwise.${deliveryKey(chunk)}`;
}

interface MatrixError {
  errcode?: string;
  error?: string;
  retry_after_ms?: number;
}

const AUTH_CODES = new Set(['M_UNKNOWN_TOKEN', 'M_MISSING_TOKEN', 'M_USER_LOCKED', 'M_USER_DEACTIVATED']);
/** Not allowed in the room (not joined, banned, no power to post) or no such room. */
const TARGET_CODES = new Set(['M_FORBIDDEN', 'M_NOT_FOUND', 'M_INVALID_PARAM']);

/** Matrix errors: `{errcode, error, retry_after_ms?}` with a meaningful HTTP status. */
export function checkClientServerResponse(res: HttpResponse): PlatformFailure | undefined {
  if (res.status < 300) return undefined;
  const body = (res.json ?? {}) as MatrixError;
  const message = `HTTP ${res.status}${body.errcode ? ` ${body.errcode}` : ''}: ${body.error ?? res.text.slice(0, 200)}`;
  if (body.errcode === 'M_LIMIT_EXCEEDED' || res.status === 429) {
    const hinted = body.retry_after_ms === undefined ? undefined : Math.ceil(body.retry_after_ms / 100) / 10;
    return { kind: 'rate_limited', message, retryAfterSeconds: retryAfterFromHeaders(res.headers) ?? hinted };
  }
  if (res.status === 401 || (body.errcode !== undefined && AUTH_CODES.has(body.errcode))) return { kind: 'auth', message };
  if (body.errcode !== undefined && TARGET_CODES.has(body.errcode)) {
    return { kind: 'target', message: `${message} (the account must have joined the room and be allowed to post)` };
  }
  return classifyHttpStatus(res, message.replace(/^HTTP \d+:? ?/, ''));
}

/** PUT /rooms/{roomId}/send answers {"event_id": "$..."}. */
const SENT: SuccessRule<ClientServerOptions> = {
  describe: 'the event_id of the sent event',
  test: (res) => typeof (res.json as { event_id?: unknown } | undefined)?.event_id === 'string',
};

/** The room id of a target: itself, or what the room directory says an alias points at. */
async function roomIdOf(target: string, { call, options, confirm }: PlatformRuntime<ClientServerOptions>): Promise<string> {
  if (target.startsWith('!')) return target;
  const res = await call({
    method: 'GET',
    url: joinUrl(options.api_base, `/_matrix/client/v3/directory/room/${pathSegment(target, LABEL)}`),
    bearer: options.token,
  });
  confirm(
    res,
    { describe: 'the room_id the alias points at', test: (r) => ROOM_ID.test(String((r.json as { room_id?: unknown } | undefined)?.room_id ?? '')) },
    `resolving ${target}`,
  );
  return (res.json as { room_id: string }).room_id;
}

/** Matrix event ids: "$" and an opaque id (with ":server" before room version 3), printable ASCII. */
const EVENT_ID = /^\$[\x21-\x7e]{1,254}$/;

type Relation = { 'm.relates_to'?: Record<string, unknown> };

/**
 * deliver_extra.reply_to_event_id (a conversation's): the message becomes a rich reply to that event
 * (`m.relates_to: {m.in_reply_to: {event_id}}`); with deliver_extra.thread_root_event_id as well, a message in that
 * thread (`rel_type: m.thread`, replying to the event in it, `is_falling_back` as the spec's thread fallback says
 * for a client without threads). Anything that is no event id is left out rather than sent.
 */
function replyOf(extra: Record<string, string>): Relation {
  const id = extra.reply_to_event_id;
  if (id === undefined || !EVENT_ID.test(id)) return {};
  const root = extra.thread_root_event_id;
  if (root !== undefined && EVENT_ID.test(root)) {
    return { 'm.relates_to': { rel_type: 'm.thread', event_id: root, is_falling_back: true, 'm.in_reply_to': { event_id: id } } };
  }
  return { 'm.relates_to': { 'm.in_reply_to': { event_id: id } } };
}

async function sendEvent(chunk: OutgoingChunk, runtime: PlatformRuntime<ClientServerOptions>): Promise<string> {
  const { call, options, confirm } = runtime;
  const room = await roomIdOf(chunk.target, runtime);
  const res = await call({
    method: 'PUT',
    url: joinUrl(options.api_base, `/_matrix/client/v3/rooms/${pathSegment(room, LABEL)}/send/m.room.message/${pathSegment(transactionId(chunk), LABEL)}`),
    bearer: options.token,
    json: { msgtype: 'm.text', body: chunk.text, format: 'org.matrix.custom.html', formatted_body: markdownToHtml(chunk.text), ...replyOf(chunk.extra) },
  });
  confirm(res, SENT, `part ${chunk.index + 1}/${chunk.count}`);
  return (res.json as { event_id: string }).event_id;
}

export const matrixPlatform = definePlatform<ClientServerOptions>({
  id: 'matrix',
  aliases: ['platform_07'],
  title: 'Matrix',
  description: 'Sends answers as m.room.message events (markdown rendered to HTML) to a Matrix room.',
  limit: MESSAGE_LIMIT,
  maxParts: 10,
  // No per-room rate in the spec: homeservers limit per user and say how long to wait (M_LIMIT_EXCEEDED,
  // retry_after_ms), which the kit honours; ten parts fit in Synapse's default burst.
  targets: {
    format: 'a room id ("!abc123:example.org", Room settings > Advanced) or a room alias ("#ops:example.org")',
    check: (target) => (ROOM_ID.test(target) || ROOM_ALIAS.test(target) ? undefined : 'it is neither a room id nor a room alias'),
  },
  optionsSchema: platformOptionsSchema({
    // No default: the homeserver is the user's own (or matrix.org, stated explicitly).
    properties: {
      token: { type: 'string', minLength: 8, description: 'Access token of the bot account.' },
      home_channel: { type: 'string', pattern: '^[!#]', description: 'Default room: a room id ("!abc123:example.org") or alias ("#ops:example.org").' },
    },
    required: ['token'],
  }),
  secrets: (o) => [o.token],
  credentialsHint: 'check platforms.matrix.token (an access token of the bot account; it stops working when that session is logged out)',
  send: sendEvent,
  // Conversations: an answer is a rich reply to the event the person answered (reply_to_event_id, above), in its room.
  conversation: {
    replyExtra: (to, extra) => ({
      ...extra,
      ...(extra.chat_id !== undefined ? { chat_id: to.chat } : {}),
      reply_to_event_id: to.messageId,
      ...(to.thread ? { thread_root_event_id: to.thread } : {}),
    }),
  },
  checkResponse: checkClientServerResponse,
  async start({ call, options, logger }) {
    const res = await call({ method: 'GET', url: joinUrl(options.api_base, '/_matrix/client/v3/account/whoami'), bearer: options.token });
    logger.info(`matrix (Matrix): connected as ${(res.json as { user_id?: string } | undefined)?.user_id ?? 'unknown user'}`);
  },
});
