// Feishu / Lark event subscriptions (Developer Console > Events & Callbacks, "send events to developer server"). An
// app with an Encrypt Key gets every event encrypted (`{"encrypt": "..."}`) and signed: X-Lark-Signature is the hex
// sha256 of X-Lark-Request-Timestamp + X-Lark-Request-Nonce + Encrypt Key + the body, so the route's secret is the
// Encrypt Key. Feishu checks the Request URL first with a `url_verification` POST whose `challenge` must be echoed
// within 1 s. The Verification Token inside the body (`header.token`) is checked too when
// `source_options.verification_token` is set. An app without an Encrypt Key signs nothing: its bodies are plain and
// carry only the token, so there the route's secret is the Verification Token (weaker: the token travels in every
// body; the README says to set an Encrypt Key).
import { headerValue, type SourceRequest, type SourceVerdict } from '@hookwise/core';
import { constantTimeEqual, defineSource, matchingSecretIndex, timestampProblem, toleranceOption } from '@hookwise/kit/source';
import { createHash } from 'node:crypto';
import { decryptFeishu, feishuEventId, feishuEventType, feishuReplyOf, feishuSenderOf, feishuToken, isUrlVerification, jsonObject } from './feishu-events';
import { feishuPayloadSchema } from './payload-schema';

export * from './feishu-events';

export const SIGNATURE_HEADER = 'x-lark-signature';
export const TIMESTAMP_HEADER = 'x-lark-request-timestamp';
export const NONCE_HEADER = 'x-lark-request-nonce';
/** Feishu documents no replay window; an hour covers its retries of a delivery while refusing old captures. */
export const FEISHU_TOLERANCE_SECONDS = 3600;

export interface FeishuOptions {
  /** The app's Verification Token: when set, the token inside every body must be it. */
  verification_token?: string;
  tolerance_seconds?: number;
}

/** X-Lark-Signature for a body: hex sha256(timestamp + nonce + encryptKey + body), as Feishu computes it. */
export function feishuSignature(timestamp: string, nonce: string, encryptKey: string, body: Buffer | string): string {
  return createHash('sha256')
    .update(timestamp + nonce + encryptKey, 'utf8')
    .update(body)
    .digest('hex');
}

/**
 * The readable payload of each verified request, kept from verify (the only step that knows which secret opened
 * it) for parse, which the gateway calls next with the same request object.
 */
const opened = new WeakMap<SourceRequest, Record<string, unknown>>();

/** The body as Feishu's JSON, decrypted with `encryptKey` when it is the `{"encrypt"}` envelope. */
function readBody(body: Record<string, unknown>, encryptKey: string): Record<string, unknown> | undefined {
  return typeof body.encrypt === 'string' ? decryptFeishu(body.encrypt, encryptKey) : body;
}

export const feishuSource = defineSource<FeishuOptions>({
  id: 'feishu',
  payloadSchema: feishuPayloadSchema,
  description:
    'Feishu / Lark event subscriptions: X-Lark-Signature (sha256 of timestamp + nonce + Encrypt Key + body), the encrypted body, the url_verification challenge; event type header.event_type, delivery id header.event_id',
  options: {
    verification_token: {
      type: 'string',
      minLength: 1,
      description: "The app's Verification Token (Events & Callbacks > Encryption Strategy): when set, every body's token must match it",
    },
    tolerance_seconds: toleranceOption(FEISHU_TOLERANCE_SECONDS),
  },
  style(options) {
    const tolerance = options.tolerance_seconds ?? FEISHU_TOLERANCE_SECONDS;

    /** The token check of source_options.verification_token, on the readable payload. */
    function tokenProblem(payload: Record<string, unknown>): string | undefined {
      if (options.verification_token === undefined) return undefined;
      const token = feishuToken(payload);
      if (token === undefined) return 'the body carries no Verification Token (header.token)';
      return constantTimeEqual(token, options.verification_token)
        ? undefined
        : "the body's Verification Token does not match source_options.verification_token (Events & Callbacks > Encryption Strategy)";
    }

    function verifySigned(req: SourceRequest, body: Record<string, unknown>, signature: string, secrets: readonly string[]): SourceVerdict {
      const timestamp = headerValue(req.headers, TIMESTAMP_HEADER);
      const nonce = headerValue(req.headers, NONCE_HEADER);
      if (timestamp === undefined || nonce === undefined)
        return { ok: false, reason: `${SIGNATURE_HEADER} comes without ${TIMESTAMP_HEADER} and ${NONCE_HEADER}` };
      const stale = timestampProblem(timestamp, req.receivedAt, tolerance);
      if (stale) return { ok: false, reason: `${TIMESTAMP_HEADER}: ${stale}` };
      const index = matchingSecretIndex(secrets, (key) => constantTimeEqual(feishuSignature(timestamp, nonce, key, req.rawBody), signature.toLowerCase()));
      if (index === -1) return { ok: false, reason: `${SIGNATURE_HEADER} does not match (is the route's secret the app's Encrypt Key?)` };
      const payload = readBody(body, secrets[index]);
      if (!payload) return { ok: false, reason: 'the signature matches but the body does not decrypt with that Encrypt Key' };
      const problem = tokenProblem(payload);
      if (problem) return { ok: false, reason: problem };
      opened.set(req, payload);
      return { ok: true, secretIndex: index };
    }

    /**
     * An unsigned request: Feishu's URL check when its body opens with one of the secrets (an Encrypt Key; answered
     * with the challenge only, nothing is queued), or a plain body of an app without an Encrypt Key, whose token is
     * then the route's secret.
     */
    function verifyUnsigned(req: SourceRequest, body: Record<string, unknown>, secrets: readonly string[]): SourceVerdict {
      if (typeof body.encrypt === 'string') {
        const encrypt = body.encrypt;
        const index = secrets.findIndex((key) => decryptFeishu(encrypt, key) !== undefined);
        const payload = index === -1 ? undefined : decryptFeishu(encrypt, secrets[index]);
        if (!payload) return { ok: false, reason: "the encrypted body does not open with the route's secret (the app's Encrypt Key)" };
        if (!isUrlVerification(payload)) {
          return { ok: false, reason: `an encrypted event without ${SIGNATURE_HEADER}: Feishu signs every event of an app with an Encrypt Key`, missing: true };
        }
        const problem = tokenProblem(payload);
        if (problem) return { ok: false, reason: problem };
        opened.set(req, payload);
        return { ok: true, secretIndex: index };
      }
      const token = feishuToken(body);
      if (token === undefined) return { ok: false, reason: `no ${SIGNATURE_HEADER} and no Verification Token in the body`, missing: true };
      const index = matchingSecretIndex(secrets, (secret) => constantTimeEqual(token, secret));
      if (index === -1) {
        return {
          ok: false,
          reason: `no ${SIGNATURE_HEADER}, and the body's token is not the route's secret (set an Encrypt Key and make it the secret, or make the Verification Token the secret)`,
        };
      }
      const problem = tokenProblem(body);
      if (problem) return { ok: false, reason: problem };
      opened.set(req, body);
      return { ok: true, secretIndex: index };
    }

    return {
      headers: [SIGNATURE_HEADER, TIMESTAMP_HEADER, NONCE_HEADER],
      verify(req, secrets) {
        const body = jsonObject(req.rawBody.toString('utf8'));
        if (!body) return { ok: false, reason: 'the body is not a JSON object', missing: true };
        const signature = headerValue(req.headers, SIGNATURE_HEADER);
        return signature !== undefined ? verifySigned(req, body, signature, secrets) : verifyUnsigned(req, body, secrets);
      },
      parse(req) {
        const payload = opened.get(req);
        if (payload) return payload;
        const body = jsonObject(req.rawBody.toString('utf8'));
        // A route without authentication verifies nothing, so an encrypted body has no key to open it with.
        if (body && typeof body.encrypt === 'string') throw new Error('the body is encrypted and no Encrypt Key verified it: give the route its secret');
        return body;
      },
      // The URL check is answered here and never queued: `{"challenge": ...}` as JSON, as Feishu's documentation asks.
      handshake(_req, payload) {
        if (!isUrlVerification(payload)) return undefined;
        if (typeof payload.challenge !== 'string') return { status: 400, body: 'the url_verification request has no challenge', contentType: 'text/plain' };
        return { status: 200, body: { challenge: payload.challenge } };
      },
      // Feishu counts only HTTP 200 as delivered (and retries otherwise), whatever the gateway decided.
      eventAnswer: { status: 200, body: {} },
      eventType: (_req, payload) => feishuEventType(payload),
      deliveryId: (_req, payload) => feishuEventId(payload),
      replyOf: feishuReplyOf,
      senderOf: feishuSenderOf,
    };
  },
});
