// Over-HTTP conformance of the Gitea/Forgejo source: real gateways with routes pinned to `source: gitea` and to its
// alias `source: forgejo`, requests signed the way Gitea's and Forgejo's webhook senders sign them.
import { createHmac } from 'node:crypto';
import { describeSourceOverHttp, type SigningKey } from '@hookwise/testing';
import { PULL_REQUEST } from '../payload-samples';

const SECRETS: [string, string] = ['gitea-new-secret', 'gitea-old-secret'];
const keyFor = (key: SigningKey) => (key === 'wrong' ? 'not-the-route-secret' : SECRETS[key]);
const hmac = (secret: string, data: Buffer | string) => createHmac('sha256', secret).update(data).digest('hex');

describeSourceOverHttp('Gitea', {
  source: 'gitea',
  secrets: SECRETS,
  body: PULL_REQUEST,
  event: 'pull_request',
  sign: ({ body, key, deliveryId }) => {
    const digest = hmac(keyFor(key), body);
    return {
      'X-Gitea-Delivery': deliveryId,
      'X-Gitea-Event': 'pull_request',
      'X-Gitea-Event-Type': 'pull_request',
      'X-Gitea-Signature': digest,
      'X-Gogs-Delivery': deliveryId,
      'X-Gogs-Event': 'pull_request',
      'X-Gogs-Signature': digest,
      'X-GitHub-Delivery': deliveryId,
      'X-GitHub-Event': 'pull_request',
    };
  },
});

describeSourceOverHttp('Forgejo (alias forgejo, X-Forgejo-* headers, detailed event type)', {
  source: 'forgejo',
  secrets: SECRETS,
  body: PULL_REQUEST.replace('"opened"', '"synchronized"'),
  event: 'pull_request_sync',
  sign: ({ body, key, deliveryId }) => ({
    'X-Forgejo-Delivery': deliveryId,
    'X-Forgejo-Event': 'pull_request',
    'X-Forgejo-Event-Type': 'pull_request_sync',
    'X-Forgejo-Signature': hmac(keyFor(key), body),
  }),
});

describeSourceOverHttp('Gitea, form-encoded webhook (the JSON in the payload field is what Gitea signs)', {
  source: 'gitea',
  secrets: SECRETS,
  sourceOptions: { event_from: 'event' },
  contentType: 'application/x-www-form-urlencoded',
  body: new URLSearchParams({ payload: PULL_REQUEST }).toString(),
  event: 'pull_request',
  sign: ({ body, key, deliveryId }) => ({
    'X-Gitea-Delivery': deliveryId,
    'X-Gitea-Event': 'pull_request',
    'X-Gitea-Event-Type': 'pull_request_label',
    'X-Gitea-Signature': hmac(keyFor(key), new URLSearchParams(body.toString()).get('payload') ?? ''),
  }),
});
