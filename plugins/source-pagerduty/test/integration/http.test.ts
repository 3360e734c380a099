// Over-HTTP conformance of the PagerDuty source: a real gateway with a route pinned to `source: pagerduty`,
// requests signed the way PagerDuty v3 webhooks are signed, and the pagey.ping test event. No stale-timestamp
// case: PagerDuty signs no timestamp.
import { createHmac } from 'node:crypto';
import { describeSourceOverHttp } from '@hookwise/testing';
import { INCIDENT_TRIGGERED } from '../payload-samples';

const SECRETS: [string, string] = ['pd-subscription-secret-new', 'pd-subscription-secret-old'];
const v1 = (secret: string, body: Buffer) => `v1=${createHmac('sha256', secret).update(body).digest('hex')}`;

describeSourceOverHttp('PagerDuty v3 webhooks', {
  source: 'pagerduty',
  secrets: SECRETS,
  // An incident.triggered event in the v3 shape of PagerDuty's "Overview" page (event.id, event_type, data: incident).
  body: INCIDENT_TRIGGERED,
  event: 'incident.triggered',
  sign: ({ body, key, deliveryId }) => ({
    'User-Agent': 'PagerDuty-Webhook/V3.0',
    'X-Webhook-Id': deliveryId,
    'X-Webhook-Subscription': 'PY1OFLZ',
    // While PagerDuty rotates its own signing secret it sends one signature per secret; the first is stale here.
    'X-PagerDuty-Signature': `${v1('pd-secret-being-retired', body)},${v1(key === 'wrong' ? 'not-the-subscription-secret' : SECRETS[key], body)}`,
  }),
  handshakes: [
    {
      name: 'pagey.ping ("Send Test Event")',
      body: '{"event":{"id":"01FKZOXA868SHYEE4DVNWB5P9W","event_type":"pagey.ping","resource_type":"pagey","occurred_at":"2025-04-07T03:00:55.532Z","agent":{"id":"PVE0ZR9","type":"user_reference"},"client":null,"data":{"message":"Hello from your friend Pagey!","type":"ping"}}}',
      expect: { status: 200, contentType: /application\/json/, body: { status: 'pong', event: 'pagey.ping' } },
    },
  ],
});
