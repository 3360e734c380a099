// Over-HTTP conformance of the Bitbucket source: a real gateway with a route pinned to `source: bitbucket`,
// requests signed the way Bitbucket Cloud signs them.
import { createHmac } from 'node:crypto';
import { describeSourceOverHttp } from '@hookwise/testing';
import { PULLREQUEST_CREATED } from '../payload-samples';

const SECRETS: [string, string] = ['bb-new-secret-2026', 'bb-old-secret-2025'];
const hmac = (algorithm: 'sha1' | 'sha256', secret: string, body: Buffer) => createHmac(algorithm, secret).update(body).digest('hex');

describeSourceOverHttp('Bitbucket Cloud', {
  source: 'bitbucket',
  secrets: SECRETS,
  body: PULLREQUEST_CREATED,
  event: 'pullrequest:created',
  sign: ({ body, key, deliveryId }) => ({
    'X-Event-Key': 'pullrequest:created',
    'X-Hook-UUID': '{a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d}',
    'X-Request-UUID': deliveryId,
    'X-Attempt-Number': '1',
    'X-Hub-Signature': `sha256=${hmac('sha256', key === 'wrong' ? 'not-the-route-secret' : SECRETS[key], body)}`,
  }),
  // GitHub sends a header of the same name: X-Hub-Signature with sha1=, beside X-Hub-Signature-256, both made
  // with the route's secret. A bitbucket route must not take either for its own.
  otherStyle: (body, secrets) => ({
    'X-GitHub-Event': 'push',
    'X-GitHub-Delivery': 'f6266f16-1bf3-46a5-9ea4-602e06ead473',
    'X-Hub-Signature': `sha1=${hmac('sha1', secrets[0], body)}`,
    'X-Hub-Signature-256': `sha256=${hmac('sha256', secrets[0], body)}`,
  }),
});
