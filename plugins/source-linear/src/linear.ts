// Linear: `Linear-Signature: <hex HMAC-SHA256 of the raw body>`, with the signed body's `webhookTimestamp` (ms) as replay guard.
import { headerValue, type SourceRequest, type SourceVerdict } from '@hookwise/core';
import {
  constantTimeEqual,
  hmacSha256Hex,
  missingHeader,
  timestampProblem,
  toleranceOption,
  verdictForSecrets,
  defineSource,
  payloadString,
} from '@hookwise/kit/source';
import { linearPayloadSchema } from './payload-schema';

export const SIGNATURE_HEADER = 'linear-signature';
export const DELIVERY_HEADER = 'linear-delivery';
export const EVENT_HEADER = 'linear-event';
/** Linear's docs: "verify it's within a minute of the time your system sees it"; its SDK refuses beyond 60 s. */
export const DEFAULT_TOLERANCE_SECONDS = 60;

/** `type.action` (default): `Issue.create`, `Comment.update`, `IssueSLA.breached`. `type`: `Issue`, as Linear-Event says. */
export type LinearEventName = 'type.action' | 'type';

export interface LinearOptions {
  tolerance_seconds?: number;
  event_name?: LinearEventName;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;

const text = payloadString;

/** The `webhookTimestamp` of a body, in milliseconds, or why there is none. */
function webhookTimestamp(rawBody: Buffer): number | string {
  let payload: unknown;
  try {
    payload = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return 'the body is not JSON, so it carries no webhookTimestamp';
  }
  const value = payload !== null && typeof payload === 'object' ? (payload as Record<string, unknown>).webhookTimestamp : undefined;
  if (value === undefined || value === null) return 'the signed body has no webhookTimestamp';
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'webhookTimestamp is not a number of milliseconds';
  return value;
}

export const linearSource = defineSource<LinearOptions>({
  id: 'linear',
  payloadSchema: linearPayloadSchema,
  description: 'Linear: Linear-Signature (hex HMAC-SHA256 of the body), webhookTimestamp within 60 s, events named <type>.<action>',
  options: {
    tolerance_seconds: toleranceOption(DEFAULT_TOLERANCE_SECONDS),
    event_name: {
      type: 'string',
      enum: ['type.action', 'type'],
      default: 'type.action',
      description: "Event names: 'type.action' (Issue.create, Comment.update) or the entity type alone ('type': Issue, as Linear-Event says).",
    },
  },
  style(options) {
    const tolerance = options.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS;
    const withAction = (options.event_name ?? 'type.action') === 'type.action';

    function verify(req: SourceRequest, secrets: readonly string[]): SourceVerdict {
      const header = headerValue(req.headers, SIGNATURE_HEADER);
      if (header === undefined) return missingHeader(SIGNATURE_HEADER);
      const offered = header.trim().toLowerCase();
      if (!HEX_SHA256.test(offered)) return { ok: false, reason: `${SIGNATURE_HEADER} is not a 64-digit hex digest` };
      // An empty secret (an unset variable) would make a key anyone can sign with: it never matches.
      const verdict = verdictForSecrets(secrets, (secret) => secret !== '' && constantTimeEqual(offered, hmacSha256Hex(secret, req.rawBody)));
      if (!verdict.ok) return verdict;
      // The timestamp is inside the signed body, so it is read only once the body is known to be Linear's.
      const sentAt = webhookTimestamp(req.rawBody);
      if (typeof sentAt === 'string') return { ok: false, reason: sentAt };
      const problem = timestampProblem(sentAt / 1000, req.receivedAt, tolerance);
      return problem ? { ok: false, reason: problem } : verdict;
    }

    return {
      headers: [SIGNATURE_HEADER, DELIVERY_HEADER, EVENT_HEADER],
      verify,
      eventType: (req, payload) => {
        const type = text(payload.type) ?? headerValue(req.headers, EVENT_HEADER)?.trim();
        if (!type) return undefined;
        const action = text(payload.action);
        return withAction && action ? `${type}.${action}` : type;
      },
      // A UUID per payload; `webhookId` in the body names the webhook, the same for all its deliveries.
      deliveryId: (req) => headerValue(req.headers, DELIVERY_HEADER)?.trim() || undefined,
    };
  },
});
