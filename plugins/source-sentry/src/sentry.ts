// Sentry integration platform webhooks: `Sentry-Hook-Signature` is the hex HMAC-SHA256 of the body with the
// integration's client secret; the event is `Sentry-Hook-Resource` + the payload's `action` (`issue.created`);
// the delivery is `Request-ID`.
import { createHash } from 'node:crypto';
import { headerValue } from '@hookwise/core';
import { verifyHexHmac, defineSource } from '@hookwise/kit/source';
import { sentryPayloadSchema } from './payload-schema';

export const SIGNATURE_HEADER = 'sentry-hook-signature';
/** `installation`, `issue`, `event_alert`, `metric_alert`, `error`, `comment`, ... */
export const RESOURCE_HEADER = 'sentry-hook-resource';
/** A UUID (hex) Sentry makes for each request, including each of its retries. */
export const REQUEST_ID_HEADER = 'request-id';
/**
 * Sentry sends `Sentry-Hook-Timestamp` (epoch seconds) but does not sign it: anyone replaying a request can set a
 * fresh one, so it proves nothing and is not checked.
 */
export const TIMESTAMP_HEADER = 'sentry-hook-timestamp';

export interface SentrySourceOptions {
  /**
   * `request_id` (default): the `Request-ID` header. `body_sha256`: a digest of the exact body, which stays the
   * same when Sentry retries (a retry gets a new Request-ID but carries the same bytes).
   */
  delivery_id?: 'request_id' | 'body_sha256';
}

/** `issue.created`, `event_alert.triggered`, `metric_alert.critical`, `installation.deleted`, ... as Sentry names them. */
export function sentryEventType(resource: string | undefined, payload: Record<string, unknown>): string | undefined {
  if (resource === undefined) return undefined;
  const action = payload.action;
  return typeof action === 'string' && action !== '' ? `${resource}.${action}` : resource;
}

export const sentrySource = defineSource<SentrySourceOptions>({
  id: 'sentry',
  payloadSchema: sentryPayloadSchema,
  description: 'Sentry integration platform: Sentry-Hook-Signature (HMAC-SHA256 hex, client secret), Sentry-Hook-Resource + action, Request-ID',
  options: {
    delivery_id: {
      type: 'string',
      enum: ['request_id', 'body_sha256'],
      default: 'request_id',
      description:
        "What identifies a delivery for duplicates: 'request_id' (the Request-ID header, new on each of Sentry's retries) or 'body_sha256' (a digest of the body, the same on retries).",
    },
  },
  style(options) {
    return {
      headers: [SIGNATURE_HEADER, RESOURCE_HEADER],
      verify: (req, secrets) => verifyHexHmac(req.headers, SIGNATURE_HEADER, req.rawBody, secrets),
      eventType: (req, payload) => sentryEventType(headerValue(req.headers, RESOURCE_HEADER), payload),
      deliveryId: (req) =>
        options.delivery_id === 'body_sha256'
          ? `sha256:${createHash('sha256').update(req.rawBody).digest('hex')}`
          : headerValue(req.headers, REQUEST_ID_HEADER),
    };
  },
});
