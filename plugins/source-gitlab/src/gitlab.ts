// GitLab webhooks: the secret token in `X-Gitlab-Token` (compared in constant time), or a signing token
// (`whsec_...`), which GitLab uses to sign by the Standard Webhooks scheme. The SPEC's `X-CodeHostB-*` spellings
// are read too.
import { firstHeaderValue } from '@hookwise/core';
import {
  STANDARD_WEBHOOKS_HEADERS,
  STANDARD_WEBHOOKS_TOLERANCE_SECONDS,
  constantTimeEqual,
  missingHeader,
  toleranceOption,
  verdictForSecrets,
  verifyStandardWebhook,
  defineSource,
} from '@hookwise/kit/source';
import { gitlabReplyOf } from './gitlab-replies';
import { gitlabPayloadSchema } from './payload-schema';

export const TOKEN_HEADERS = ['x-gitlab-token', 'x-codehostb-token'];
export const EVENT_HEADERS = ['x-gitlab-event', 'x-codehostb-event'];
/** In order: stable across GitLab's retries (17.4+), then unique per event, then unique per delivery. */
export const DELIVERY_HEADERS = ['idempotency-key', 'x-gitlab-event-uuid', 'x-gitlab-webhook-uuid'];

export interface GitlabSourceOptions {
  tolerance_seconds?: number;
}

const isSigningToken = (secret: string) => secret.startsWith('whsec_');

export const gitlabSource = defineSource<GitlabSourceOptions>({
  id: 'gitlab',
  payloadSchema: gitlabPayloadSchema,
  aliases: ['codehost_b'],
  description: 'GitLab: X-Gitlab-Token (secret token) or a signing token (Standard Webhooks), X-Gitlab-Event, Idempotency-Key',
  options: { tolerance_seconds: toleranceOption(STANDARD_WEBHOOKS_TOLERANCE_SECONDS) },
  style(options) {
    const tolerance = options.tolerance_seconds ?? STANDARD_WEBHOOKS_TOLERANCE_SECONDS;
    return {
      headers: [...TOKEN_HEADERS, STANDARD_WEBHOOKS_HEADERS.signature],
      verify(req, secrets) {
        // A signing token only ever verifies a signature and a plain token only a token, so a request can never
        // downgrade a signed route to the weaker token check.
        const signing = secrets.flatMap((secret, index) => (isSigningToken(secret) ? [index] : []));
        if (firstHeaderValue(req.headers, [STANDARD_WEBHOOKS_HEADERS.signature]) !== undefined && signing.length) {
          const verdict = verifyStandardWebhook(
            req.headers,
            req.rawBody,
            signing.map((index) => secrets[index]),
            req.receivedAt,
            { toleranceSeconds: tolerance, encoding: 'base64' },
          );
          return verdict.ok ? { ok: true, secretIndex: signing[verdict.secretIndex] } : verdict;
        }
        const token = firstHeaderValue(req.headers, TOKEN_HEADERS);
        if (token === undefined) return missingHeader(TOKEN_HEADERS[0]);
        return verdictForSecrets(secrets, (secret) => !isSigningToken(secret) && constantTimeEqual(token, secret), 'token does not match');
      },
      eventType: EVENT_HEADERS,
      deliveryId: DELIVERY_HEADERS,
      replyOf: gitlabReplyOf,
    };
  },
});
