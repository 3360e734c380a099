// BlueBubbles server webhooks (Settings > API & Webhooks, or POST /api/v1/webhook): the server POSTs
// `{"type": "new-message", "data": {...}}` as JSON to the URL it is given, with no signature and no credential of
// any kind (its WebhookService sends only Content-Type; the server password authenticates requests *to* the
// server, never the ones it makes). The only proof the gateway can have is a secret placed in the webhook URL
// itself: `https://<gateway>/webhooks/<route>?secret=<the route's secret>`, compared in constant time. The URL (and
// so the secret) must travel over HTTPS; the README says so.
import { type InboundReply, type InboundSender, type SourceRequest, type SourceVerdict } from '@hookwise/core';
import { constantTimeEqual, defineSource, verdictForSecrets, payloadString, isPayloadObject } from '@hookwise/kit/source';
import { bluebubblesPayloadSchema } from './payload-schema';

/** The query parameters a secret may be given in: `secret`, or BlueBubbles' own names for its password. */
export const SECRET_PARAMS = ['secret', 'password', 'guid', 'token'] as const;
/** The platform name of iMessage chats through BlueBubbles, the same as the deliverer's id. */
export const BLUEBUBBLES_PLATFORM = 'bluebubbles';

const isObject = isPayloadObject;
const text = payloadString;
const stamp = (value: unknown): string => (typeof value === 'number' && Number.isFinite(value) ? String(value) : '0');

/** The secret the webhook URL carries, from the first of SECRET_PARAMS present. */
function offeredSecret(url: string): string | undefined {
  let query: URLSearchParams;
  try {
    query = new URL(url).searchParams;
  } catch {
    return undefined;
  }
  for (const name of SECRET_PARAMS) {
    const value = query.get(name);
    if (value !== null) return value;
  }
  return undefined;
}

export function verifyBlueBubblesUrl(req: SourceRequest, secrets: readonly string[]): SourceVerdict {
  const offered = offeredSecret(req.url);
  if (offered === undefined) {
    return {
      ok: false,
      reason: "no ?secret= in the URL: BlueBubbles signs nothing, so the webhook URL given to it must end with ?secret=<the route's secret>",
      missing: true,
    };
  }
  return verdictForSecrets(secrets, (secret) => constantTimeEqual(offered, secret), "the URL's secret does not match the route's secret");
}

/** The event's `type`: `new-message`, `updated-message`, `typing-indicator`, `group-name-change`, `chat-read-status-changed`, ... */
export function bluebubblesEventType(payload: Record<string, unknown>): string | undefined {
  return text(payload.type);
}

/**
 * A new message's `guid`; an update of one is its guid and the dates that changed (delivered, read, edited), so
 * that "delivered" and "read" are two events. Other events carry no id (the gateway makes one).
 */
export function bluebubblesDeliveryId(payload: Record<string, unknown>): string | undefined {
  const data = isObject(payload.data) ? payload.data : undefined;
  const guid = text(data?.guid);
  if (!data || !guid) return undefined;
  if (payload.type === 'new-message') return guid;
  if (payload.type === 'updated-message') return `${guid}:${stamp(data.dateDelivered)}:${stamp(data.dateRead)}:${stamp(data.dateEdited)}`;
  return undefined;
}

/**
 * A `new-message` someone else wrote (not `isFromMe`: the gateway's own answers come back as new messages too; not a
 * tapback, which has an `associatedMessageGuid`) in its first chat: an inline reply names the message it answers
 * (`threadOriginatorGuid`); any other message continues the latest answer in that chat.
 */
export function bluebubblesReplyOf(payload: Record<string, unknown>): InboundReply | undefined {
  if (payload.type !== 'new-message' || !isObject(payload.data)) return undefined;
  const message = payload.data;
  if (message.isFromMe === true || text(message.associatedMessageGuid)) return undefined;
  const chats = Array.isArray(message.chats) ? message.chats : [];
  const chat = isObject(chats[0]) ? text(chats[0].guid) : undefined;
  const userId = isObject(message.handle) ? text(message.handle.address) : undefined;
  if (!chat || !userId) return undefined;
  // An inline reply: the answer replies inline to the person's message (its guid) rather than to the gateway's
  // earlier one. A plain message is answered plainly in the chat.
  const answered = text(message.threadOriginatorGuid);
  const own = answered ? text(message.guid) : undefined;
  return {
    to: { platform: BLUEBUBBLES_PLATFORM, chat, messageId: answered ?? '' },
    userId,
    from: `iMessage user ${userId}`,
    text: typeof message.text === 'string' ? message.text : '',
    ...(own ? { message: { platform: BLUEBUBBLES_PLATFORM, chat, messageId: own } } : {}),
  };
}

/**
 * Who wrote a `new-message` from someone else: its `handle.address` (a phone number or an Apple ID e-mail). The
 * server's own messages (`isFromMe`) and every other event (updates, typing, chat changes) name nobody.
 */
export function bluebubblesSenderOf(payload: Record<string, unknown>): InboundSender | undefined {
  if (payload.type !== 'new-message' || !isObject(payload.data) || payload.data.isFromMe === true) return undefined;
  const address = isObject(payload.data.handle) ? text(payload.data.handle.address) : undefined;
  return address ? { id: address, from: `iMessage user ${address}` } : undefined;
}

/** A `new-message` the server's own account sent (`isFromMe`): the gateway's answers come back so; never a run. */
export function bluebubblesOwnMessage(payload: Record<string, unknown>): boolean {
  return payload.type === 'new-message' && isObject(payload.data) && payload.data.isFromMe === true;
}

export const bluebubblesSource = defineSource({
  id: 'bluebubbles',
  payloadSchema: bluebubblesPayloadSchema,
  description:
    "BlueBubbles server webhooks (iMessage): BlueBubbles signs nothing, so the webhook URL carries ?secret=<the route's secret>; event type `type`, delivery id the message guid",
  style: () => ({
    headers: [],
    verify: verifyBlueBubblesUrl,
    eventType: (_req, payload) => bluebubblesEventType(payload),
    deliveryId: (_req, payload) => bluebubblesDeliveryId(payload),
    replyOf: bluebubblesReplyOf,
    senderOf: bluebubblesSenderOf,
    ownMessage: bluebubblesOwnMessage,
  }),
});
