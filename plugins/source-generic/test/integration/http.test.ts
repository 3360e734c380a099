// The generic style over real HTTP.
import { createHmac } from 'node:crypto';
import { describeSourceOverHttp } from '@hookwise/testing';

const secrets: [string, string] = ['generic-new-secret-0123456789', 'generic-old-secret-0123456789'];

describeSourceOverHttp('generic', {
  source: 'generic',
  secrets,
  body: JSON.stringify({ event_type: 'deploy', service: 'api', version: '1.4.2' }),
  event: 'deploy',
  sign: ({ body, key, deliveryId }) => ({
    'X-Webhook-Signature': createHmac('sha256', key === 'wrong' ? 'not-the-route-secret-0123' : secrets[key])
      .update(body)
      .digest('hex'),
    'X-Request-ID': deliveryId,
  }),
});
