// GitHub webhooks: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`, event and delivery id headers.
// The SPEC's stand-in spellings (`X-CodeHostA-*`) are read too, so configs and senders written against it still work.
import { GITHUB_SENDER_GROUPS, githubReplyOf } from './github-replies';
import { headerValue } from '@hookwise/core';
import { constantTimeEqual, hmacDigest, missingHeader, verdictForSecrets, verifyHexHmac, defineSource } from '@hookwise/kit/source';
import { githubPayloadSchema } from './payload-schema';

export const SIGNATURE_HEADERS = ['x-hub-signature-256', 'x-codehosta-signature-256'];
/** The SHA-1 signature GitHub still sends beside the SHA-256 one; only read when a route opts in. */
export const SHA1_HEADER = 'x-hub-signature';
export const EVENT_HEADERS = ['x-github-event', 'x-codehosta-event'];
export const DELIVERY_HEADERS = ['x-github-delivery', 'x-codehosta-delivery'];

export interface GithubSourceOptions {
  /** Accept `X-Hub-Signature: sha1=...` when no SHA-256 signature is sent (very old GitHub Enterprise servers). */
  allow_sha1?: boolean;
}

const HEX_SHA1 = /^[0-9a-f]{40}$/;

export const githubSource = defineSource<GithubSourceOptions>({
  id: 'github',
  payloadSchema: githubPayloadSchema,
  aliases: ['codehost_a'],
  description: 'GitHub: X-Hub-Signature-256 (sha256=HMAC-SHA256 hex), X-GitHub-Event, X-GitHub-Delivery',
  options: { allow_sha1: { type: 'boolean', default: false, description: 'Also accept the legacy X-Hub-Signature (HMAC-SHA1).' } },
  style(options) {
    const headers = options.allow_sha1 ? [...SIGNATURE_HEADERS, SHA1_HEADER] : SIGNATURE_HEADERS;
    return {
      headers,
      verify(req, secrets) {
        const header = SIGNATURE_HEADERS.find((name) => headerValue(req.headers, name) !== undefined);
        if (header) return verifyHexHmac(req.headers, header, req.rawBody, secrets, 'sha256=');
        const sha1 = options.allow_sha1 ? headerValue(req.headers, SHA1_HEADER) : undefined;
        if (sha1 === undefined) return missingHeader(SIGNATURE_HEADERS[0]);
        const digest = sha1
          .trim()
          .toLowerCase()
          .replace(/^sha1=/, '');
        if (!HEX_SHA1.test(digest)) return { ok: false, reason: `${SHA1_HEADER} is not 'sha1=' and a 40-digit hex digest` };
        return verdictForSecrets(secrets, (secret) => constantTimeEqual(digest, hmacDigest('sha1', secret, req.rawBody, 'hex')));
      },
      eventType: EVENT_HEADERS,
      deliveryId: DELIVERY_HEADERS,
      replyOf: githubReplyOf,
      senderGroups: GITHUB_SENDER_GROUPS,
    };
  },
});
