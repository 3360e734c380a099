// Gitea and Forgejo webhooks: `X-Gitea-Signature` / `X-Forgejo-Signature` hold the hex HMAC-SHA256 (no prefix) of
// the JSON payload, the event in `X-Gitea-Event-Type` (or the coarser `X-Gitea-Event`), the delivery in
// `X-Gitea-Delivery`. Forgejo sends every X-Gitea-* header as well as its own X-Forgejo-* ones.
import { headerValue, type HeaderMap, type SourceVerdict } from '@hookwise/core';
import { constantTimeEqual, hmacSha256Hex, missingHeader, verdictForSecrets, defineSource } from '@hookwise/kit/source';
import { giteaPayloadSchema } from './payload-schema';

export const SIGNATURE_HEADERS = ['x-gitea-signature', 'x-forgejo-signature'];
/** The detailed type (`pull_request_sync`, `issue_label`, `pull_request_review_approved`, ...). */
export const EVENT_TYPE_HEADERS = ['x-gitea-event-type', 'x-forgejo-event-type'];
/** The GitHub-like family (`pull_request` for opened, labelled, synchronised, ...; `issues`; `issue_comment`). */
export const EVENT_HEADERS = ['x-gitea-event', 'x-forgejo-event'];
/** A UUID per hook task; a redelivery from the UI is a new task with a new UUID. */
export const DELIVERY_HEADERS = ['x-gitea-delivery', 'x-forgejo-delivery'];

export interface GiteaSourceOptions {
  /**
   * `event_type` (default): the detailed `X-Gitea-Event-Type`, e.g. `pull_request_sync`; `event`: the family in
   * `X-Gitea-Event`, e.g. `pull_request`, as a GitHub-style route expects. Each falls back to the other header
   * when its own is absent or empty.
   */
  event_from?: 'event_type' | 'event';
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * The bytes Gitea signed. A webhook with content type `application/json` posts the payload as the body. One with
 * `application/x-www-form-urlencoded` posts `payload=<the JSON, URL-encoded>` but still signs the JSON alone, so
 * the form's `payload` field (the same one the gateway parses) is checked too.
 */
function signedCandidates(headers: HeaderMap, rawBody: Buffer): Buffer[] {
  const contentType = (headerValue(headers, 'content-type') ?? '').toLowerCase();
  if (!contentType.startsWith('application/x-www-form-urlencoded')) return [rawBody];
  const field = new URLSearchParams(rawBody.toString('utf8')).get('payload');
  return field === null ? [rawBody] : [Buffer.from(field, 'utf8'), rawBody];
}

export function verifyGiteaSignature(headers: HeaderMap, rawBody: Buffer, secrets: readonly string[]): SourceVerdict {
  const header = SIGNATURE_HEADERS.find((name) => headerValue(headers, name) !== undefined);
  // Gitea sends an empty X-Gitea-Signature when the webhook has no secret: that is "missing" too.
  if (header === undefined) return missingHeader(SIGNATURE_HEADERS[0]);
  const digest = (headerValue(headers, header) ?? '').trim().toLowerCase();
  if (!HEX_SHA256.test(digest)) return { ok: false, reason: `${header} is not a 64-digit hex digest` };
  const candidates = signedCandidates(headers, rawBody);
  return verdictForSecrets(secrets, (secret) => {
    // Every candidate is hashed (no early exit), so the time does not depend on which one matched.
    let matched = false;
    for (const bytes of candidates) if (constantTimeEqual(digest, hmacSha256Hex(secret, bytes))) matched = true;
    return matched;
  });
}

export const giteaSource = defineSource<GiteaSourceOptions>({
  id: 'gitea',
  payloadSchema: giteaPayloadSchema,
  aliases: ['forgejo'],
  description: 'Gitea and Forgejo: X-Gitea-Signature / X-Forgejo-Signature (HMAC-SHA256 hex), X-Gitea-Event-Type, X-Gitea-Delivery',
  options: {
    event_from: {
      type: 'string',
      enum: ['event_type', 'event'],
      default: 'event_type',
      description:
        "Which header names the event: 'event_type' (X-Gitea-Event-Type, detailed: pull_request_sync, issue_label, ...) or 'event' (X-Gitea-Event, the GitHub-like family: pull_request, issues, ...).",
    },
  },
  style(options) {
    const [primary, fallback] = options.event_from === 'event' ? [EVENT_HEADERS, EVENT_TYPE_HEADERS] : [EVENT_TYPE_HEADERS, EVENT_HEADERS];
    return {
      headers: [...SIGNATURE_HEADERS, ...DELIVERY_HEADERS],
      verify: (req, secrets) => verifyGiteaSignature(req.headers, req.rawBody, secrets),
      eventType: [...primary, ...fallback],
      deliveryId: DELIVERY_HEADERS,
    };
  },
});
