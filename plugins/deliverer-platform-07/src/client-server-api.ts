// platform_07: the Matrix client-server API. Each chunk is an m.room.message (m.text, with the markdown
// rendered to org.matrix.custom.html) sent with PUT .../send/m.room.message/{txnId}; the transaction id is
// derived from route, delivery id and chunk index, so the homeserver drops a retried chunk it already has.
import { HookwiseError } from '@hookwise/core';
import { classifyHttpStatus, definePlatform, deliveryKey, joinUrl, markdownToHtml, platformOptionsSchema, retryAfterFromHeaders, type HttpResponse, type OutgoingChunk, type PlatformFailure, type PlatformOptions } from '@hookwise/kit';

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

/** The same chunk of the same delivery always gets the same id: a retry is deduplicated by the homeserver. */
export function transactionId(chunk: Pick<OutgoingChunk, 'route' | 'deliveryId' | 'index'>): string {
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

function roomId(target: string): string {
  if (!target.startsWith('!')) {
    throw new HookwiseError(
      'HW_E_DELIVERY_TARGET',
      `platform_07 (Matrix): '${target}' is not a room id: use the room's internal id ("!abc123:example.org", Room settings > Advanced), not an alias or user id`,
      { retryable: false },
    );
  }
  return target;
}

export const clientServerPlatform = definePlatform<ClientServerOptions>({
  id: 'platform_07',
  title: 'Matrix',
  description: 'Sends answers as m.room.message events (markdown rendered to HTML) to a Matrix room.',
  limit: MESSAGE_LIMIT,
  optionsSchema: platformOptionsSchema({
    // No default: the homeserver is the user's own (or matrix.org, stated explicitly).
    properties: {
      token: { type: 'string', minLength: 8, description: 'Access token of the bot account.' },
      home_channel: { type: 'string', pattern: '^!', description: 'Default room id, e.g. "!abc123:example.org".' },
    },
    required: ['token'],
  }),
  secrets: (o) => [o.token],
  credentialsHint: 'check platforms.platform_07.token (an access token of the bot account; it stops working when that session is logged out)',
  request: (chunk, o) => ({
    method: 'PUT',
    url: joinUrl(o.api_base, `/_matrix/client/v3/rooms/${encodeURIComponent(roomId(chunk.target))}/send/m.room.message/${encodeURIComponent(transactionId(chunk))}`),
    bearer: o.token,
    json: { msgtype: 'm.text', body: chunk.text, format: 'org.matrix.custom.html', formatted_body: markdownToHtml(chunk.text) },
  }),
  checkResponse: checkClientServerResponse,
  messageId: (res) => (res.json as { event_id?: string } | undefined)?.event_id,
  async start({ call, options, logger }) {
    const res = await call({ method: 'GET', url: joinUrl(options.api_base, '/_matrix/client/v3/account/whoami'), bearer: options.token });
    logger.info(`platform_07 (Matrix): connected as ${(res.json as { user_id?: string } | undefined)?.user_id ?? 'unknown user'}`);
  },
});
