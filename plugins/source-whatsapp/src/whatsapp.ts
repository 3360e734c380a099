// WhatsApp Cloud API webhooks (Meta's Webhooks product): every POST carries X-Hub-Signature-256, `sha256=` and the
// hex HMAC-SHA256 of the body keyed with the Meta app's App Secret. Before sending any, Meta checks the callback URL
// with a GET (`hub.mode=subscribe`, `hub.verify_token`, `hub.challenge`) and wants the challenge echoed; that GET
// carries no signature, so it is verified by the verify token (source_options.verify_token) instead.
import { type HandshakeAnswer, type SourceRequest, type SourceVerdict } from '@hookwise/core';
import { constantTimeEqual, defineSource, verifyHexHmac } from '@hookwise/kit/source';
import { whatsappReplyOf, whatsappSenderOf } from './whatsapp-replies';
import { whatsappPayloadSchema } from './payload-schema';

export const SIGNATURE_HEADER = 'x-hub-signature-256';
export interface WhatsAppOptions {
  /** The Verify Token typed into the app's Webhooks settings: answers Meta's GET check of the callback URL. */
  verify_token?: string;
}

const isGet = (req: SourceRequest): boolean => (req.method ?? 'POST').toUpperCase() === 'GET';

function queryOf(req: SourceRequest): URLSearchParams {
  try {
    return new URL(req.url).searchParams;
  } catch {
    return new URLSearchParams();
  }
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const list = (value: unknown): Array<Record<string, unknown>> =>
  Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object') : [];

/** The `value` of the first change of the first entry (Meta batches; in practice one change per POST). */
function firstChange(payload: Record<string, unknown>): { field?: string; value: Record<string, unknown> } | undefined {
  const change = list(list(payload.entry)[0]?.changes)[0];
  if (!change) return undefined;
  const value = change.value !== null && typeof change.value === 'object' ? (change.value as Record<string, unknown>) : {};
  return { field: typeof change.field === 'string' ? change.field : undefined, value };
}

/**
 * `messages` for incoming messages (text, media, button and interactive replies, reactions), `statuses` for the
 * sent/delivered/read/failed notices Meta posts under the same `messages` field, else the change's field
 * (`message_template_status_update`, `account_update`, ...).
 */
export function whatsappEventType(payload: Record<string, unknown>): string | undefined {
  const change = firstChange(payload);
  if (!change) return undefined;
  if (list(change.value.messages).length > 0) return 'messages';
  if (list(change.value.statuses).length > 0) return 'statuses';
  return change.field;
}

/**
 * Meta sends no delivery id: a message's `wamid` is one (the same on Meta's retries), and a status notice is its
 * `wamid` and status (`sent`, `delivered` and `read` of one message are three events). Else none, and the gateway
 * makes one up.
 */
export function whatsappDeliveryId(payload: Record<string, unknown>): string | undefined {
  const change = firstChange(payload);
  const message = list(change?.value.messages)[0];
  if (typeof message?.id === 'string' && message.id !== '') return message.id;
  const status = list(change?.value.statuses)[0];
  if (typeof status?.id === 'string' && typeof status.status === 'string') return `${status.id}:${status.status}`;
  return undefined;
}

export const whatsappSource = defineSource<WhatsAppOptions>({
  id: 'whatsapp',
  payloadSchema: whatsappPayloadSchema,
  description: 'WhatsApp Cloud API: X-Hub-Signature-256 (sha256= HMAC of the body with the App Secret), the GET verify-token handshake (hub.challenge)',
  options: {
    verify_token: {
      type: 'string',
      minLength: 1,
      description: "The Verify Token of the app's Webhooks settings; Meta's GET check of the callback URL is refused without it",
    },
  },
  style(options) {
    function verifyChallenge(req: SourceRequest): SourceVerdict {
      const query = queryOf(req);
      const offered = query.get('hub.verify_token');
      if (query.get('hub.mode') !== 'subscribe' || offered === null) {
        return { ok: false, reason: 'a GET is only the verification request (hub.mode=subscribe with hub.verify_token)', missing: true };
      }
      if (options.verify_token === undefined) {
        return { ok: false, reason: "Meta's verification request came, but source_options.verify_token is not set: set it to the app's Verify Token" };
      }
      return constantTimeEqual(offered, options.verify_token)
        ? { ok: true, secretIndex: 0 }
        : { ok: false, reason: "hub.verify_token does not match source_options.verify_token (the Verify Token of the app's Webhooks settings)" };
    }

    return {
      headers: [SIGNATURE_HEADER],
      requests: { methods: ['GET'] },
      verify: (req, secrets) => (isGet(req) ? verifyChallenge(req) : verifyHexHmac(req.headers, SIGNATURE_HEADER, req.rawBody, secrets, 'sha256=')),
      // The GET has no body: its query is the payload, for the handshake below; a POST is Meta's JSON.
      parse: (req) => (isGet(req) ? Object.fromEntries(queryOf(req)) : jsonObject(req.rawBody.toString('utf8'))),
      // The GET is always answered here, never queued: the challenge echoed as Meta's documentation asks.
      handshake(req, payload): HandshakeAnswer | undefined {
        if (!isGet(req)) return undefined;
        const challenge = payload['hub.challenge'];
        if (typeof challenge !== 'string' || challenge === '') return { status: 400, body: 'hub.challenge is missing', contentType: 'text/plain' };
        return { status: 200, body: challenge, contentType: 'text/plain' };
      },
      eventType: (_req, payload) => whatsappEventType(payload),
      deliveryId: (_req, payload) => whatsappDeliveryId(payload),
      // A reply to one of the gateway's answers continues its conversation (whatsapp-replies.ts).
      replyOf: whatsappReplyOf,
      senderOf: whatsappSenderOf,
    };
  },
});
