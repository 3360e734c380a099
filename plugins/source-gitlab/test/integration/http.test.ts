// GitLab over real HTTP with signing tokens (Standard Webhooks, signed by the standardwebhooks library).
import { describeSourceOverHttp } from '@hookwise/testing';
import { Webhook } from 'standardwebhooks';
import { MERGE_REQUEST } from '../payload-samples';

const token = (seed: string) => `whsec_${Buffer.from(seed).toString('base64')}`;
const secrets: [string, string] = [token('gitlab-signing-new-0123456789'), token('gitlab-signing-old-0123456789')];

describeSourceOverHttp('gitlab', {
  source: 'gitlab',
  secrets,
  body: MERGE_REQUEST,
  event: 'Merge Request Hook',
  staleSeconds: 600,
  sign: ({ body: raw, key, timestamp, deliveryId }) => {
    const secret = key === 'wrong' ? token('some-other-signing-key-0123') : secrets[key];
    return {
      'webhook-id': deliveryId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': new Webhook(secret.slice('whsec_'.length)).sign(deliveryId, new Date(timestamp * 1000), raw.toString('utf8')),
      'X-Gitlab-Event': 'Merge Request Hook',
      'Idempotency-Key': deliveryId,
    };
  },
});
