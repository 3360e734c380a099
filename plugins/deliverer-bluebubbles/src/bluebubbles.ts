// bluebubbles: a BlueBubbles server (iMessage bridged through a Mac). `POST
// /api/v1/message/text?password=...` with `{chatGuid, tempGuid, message, method?}`; answers `{status, message,
// data, error?}`. The password rides in the query string, so it is registered as a secret and scrubbed in
// every form it takes there (a space becomes "+" or "%20") and never shown.
import type { DelivererConversation } from '@hookwise/core';
import {
  classifyHttpStatus,
  definePlatform,
  deliveryKey,
  extraValue,
  joinUrl,
  platformOptionsSchema,
  type HttpResponse,
  type OutgoingChunk,
  type PlatformOptions,
  type ResponseVerdict,
} from '@hookwise/kit/platform';

export interface ServerApiOptions extends PlatformOptions {
  api_base: string;
  password: string;
  /** "apple-script" (default on the server) or "private-api". */
  method?: 'apple-script' | 'private-api';
}

/** iMessage has no small hard limit; parts of 10,000 characters stay readable on a phone. */
export const MESSAGE_LIMIT = 10000;
/** A chat guid: service;-;address for a direct chat, service;+;chat id for a group. */
const CHAT_GUID = /^(iMessage|SMS|RCS|any);[-+];[^\s;/?#]{1,200}$/;

/**
 * The same part of one delivery to one destination always gets the same tempGuid (route + delivery id +
 * destination, then the part): the server refuses a second copy while the first is queued.
 */
export function tempGuid(chunk: Pick<OutgoingChunk, 'route' | 'deliveryId' | 'destination' | 'index'>): string {
  return `hookwise-${deliveryKey(chunk, '-')}`;
}

/** deliver_extra naming the message a continuing answer replies to inline (set by the conversation facet). */
export const REPLY_TO_KEY = 'reply_to_message_guid';
/** Message guids as iMessage makes them (a UUID), as the server's webhooks and send answers carry them. */
const MESSAGE_GUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

function targetProblem(target: string, extra: Record<string, string>, o: ServerApiOptions): string | undefined {
  if (!CHAT_GUID.test(target)) return 'it is not a chat guid';
  // Checked only where it is sent (below): elsewhere it is left out, so it cannot fail an answer.
  const replyTo = o.method === 'private-api' ? extraValue(extra, REPLY_TO_KEY) : undefined;
  if (replyTo !== undefined && !MESSAGE_GUID.test(replyTo))
    return `deliver_extra.${REPLY_TO_KEY} ${JSON.stringify(replyTo.slice(0, 40))} is not a message guid`;
  return undefined;
}

/**
 * Conversations. source-bluebubbles reads a person's message in a chat (`data.chats[0].guid`) as a reply
 * to the message its inline reply names (`threadOriginatorGuid`), or to the chat's latest answer (id ''). So each
 * answer is recorded in its chat (the target, a chat guid of the same form) under the guid of each part the server
 * answers with, and as the chat's latest (byChat). An answer to a person's message is an inline reply to that
 * message (source-bluebubbles names it): the send-text API's `selectedMessageGuid` with `partIndex` (the server's MessageValidator.sendTextRules;
 * "REST API & Webhooks", docs.bluebubbles.app), which the server can send only through its Private API.
 */
export const bluebubblesConversation: DelivererConversation = {
  platform: 'bluebubbles',
  byChat: true,
  replyExtra: (to, extra) => {
    const { [REPLY_TO_KEY]: _earlier, ...rest } = extra;
    return { ...rest, chat_id: to.chat, ...(to.messageId ? { [REPLY_TO_KEY]: to.messageId } : {}) };
  },
};

function apiUrl(o: ServerApiOptions, path: string): string {
  return joinUrl(o.api_base, path, { password: o.password });
}

interface ServerAnswer {
  status?: number;
  message?: string;
  data?: { guid?: string } | unknown;
  error?: { type?: string; message?: string } | string;
}

/**
 * The server's refusal of a tempGuid it is still sending ("Message is already queued to be sent! (Temp GUID: ...)",
 * HTTP 400 Validation Error). Matched loosely on purpose (queued or sent, 400 or 409), in case other server
 * versions word or code it a little differently.
 */
const ALREADY_QUEUED = /\balready\s+(?:been\s+)?(?:queued|sent)\b/i;

export function checkServerResponse(res: HttpResponse): ResponseVerdict | undefined {
  const body = res.json as ServerAnswer | undefined;
  const status = typeof body?.status === 'number' ? body.status : res.status;
  if (status < 300 && !body?.error) return classifyHttpStatus(res);
  const error = typeof body?.error === 'string' ? body.error : body?.error?.message;
  const said = [body?.message, error].filter((v) => v).join(': ') || res.text.slice(0, 200);
  const message = `status ${status}: ${said}`;
  // Our tempGuid is still in the server's send cache: an earlier attempt of this part (one that timed out on
  // our side) reached the server and is being sent. Counted as delivered instead of sending a second copy.
  if ((status === 400 || status === 409) && ALREADY_QUEUED.test(said)) return { kind: 'already_delivered', message };
  if (status === 401 || status === 403) return { kind: 'auth', message };
  if (status === 404) return { kind: 'target', message };
  if (status >= 500) return { kind: 'unavailable', message };
  return classifyHttpStatus({ ...res, status }, said) ?? { kind: 'rejected', message };
}

export const blueBubblesPlatform = definePlatform<ServerApiOptions>({
  id: 'bluebubbles',
  aliases: ['platform_15'],
  title: 'BlueBubbles',
  description: 'Sends answers as iMessages through a BlueBubbles server.',
  limit: MESSAGE_LIMIT,
  maxParts: 10,
  // iMessage documents no rate; the server sends one message after the other.
  targets: {
    format: 'a chat guid: iMessage;-;+15555550123 (direct) or iMessage;+;chat123456789 (group)',
    check: (target, { extra, options }) => targetProblem(target, extra, options),
  },
  optionsSchema: platformOptionsSchema({
    // no default: the server is self-hosted, api_base is required
    properties: {
      password: { type: 'string', minLength: 1, description: 'The BlueBubbles server password.' },
      method: { type: 'string', enum: ['apple-script', 'private-api'], description: 'Send method; default: the server decides (AppleScript).' },
    },
    required: ['password'],
  }),
  secrets: (o) => [o.password],
  credentialsHint: 'check platforms.bluebubbles.password (BlueBubbles Server > Settings > Server Password)',
  request: (chunk, o) => {
    // Inline replies need the Private API (the server switches to it when selectedMessageGuid is given, and fails
    // where it is not set up): only a server configured with method private-api gets them; others get the answer
    // in the same chat, not inline. Every part replies to the same message, so a split answer stays in its thread.
    const replyTo = o.method === 'private-api' ? extraValue(chunk.extra, REPLY_TO_KEY) : undefined;
    return {
      method: 'POST',
      url: apiUrl(o, '/api/v1/message/text'),
      json: {
        chatGuid: chunk.target,
        tempGuid: tempGuid(chunk),
        message: chunk.text,
        ...(o.method ? { method: o.method } : {}),
        ...(replyTo ? { selectedMessageGuid: replyTo, partIndex: 0 } : {}),
      },
    };
  },
  conversation: bluebubblesConversation,
  checkResponse: checkServerResponse,
  // POST /api/v1/message/text answers {status: 200, message: "Message sent!", data: <the message, with its guid>}.
  success: {
    describe: 'status 200 with the sent message in data',
    test: (res) => {
      const body = res.json as ServerAnswer | undefined;
      return body?.status === 200 && typeof body.data === 'object' && body.data !== null;
    },
  },
  messageId: (res) => ((res.json as ServerAnswer | undefined)?.data as { guid?: string } | undefined)?.guid,
  async start({ call, options, logger }) {
    await call({ url: apiUrl(options, '/api/v1/ping') });
    logger.info('bluebubbles (BlueBubbles): server reachable and password accepted');
  },
});
