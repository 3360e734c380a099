// The over-HTTP conformance tests of @hookwise/testing for the Zoom source: a real gateway, requests signed with the
// documented algorithm (v0=HMAC-SHA256 of "v0:<timestamp>:<body>"), and the endpoint.url_validation handshake.
//
// Zoom's delivery id comes from the body (event, event_ts and a hash of the body; Zoom sends no id header that
// survives a retry). bodyFor() does what Zoom does for a new event: the example with a meeting uuid of its own,
// derived from the kit's delivery id. The same kit id (a retry) gives the same bytes, another id another event;
// expectedDeliveryId() computes the id the gateway must report by the same rule.
import { createHash, createHmac } from 'node:crypto';
import { describeSourceOverHttp } from '@hookwise/testing';
import { UUID, MEETING_STARTED } from '../payload-samples';

const SECRETS: [string, string] = ['zoomSecretToken-Abc123Def456Ghi789', 'zoomSecretToken-Old000Old000Old000'];
const WRONG = 'zoomSecretToken-Wrong0Wrong0Wrong0';

// https://developers.zoom.us/docs/api/webhooks/#validate-your-webhook-endpoint
const URL_VALIDATION = '{"payload":{"plainToken":"qgg8vlvZRS6UYooatFL8Aw"},"event_ts":1654503849680,"event":"endpoint.url_validation"}';

/** The example with a base64 meeting uuid of its own per kit delivery id. */
const bodyFor = (deliveryId: string) => MEETING_STARTED.replace(UUID, createHash('sha256').update(deliveryId).digest().subarray(0, 16).toString('base64'));

describeSourceOverHttp('zoom', {
  source: 'zoom',
  secrets: SECRETS,
  body: MEETING_STARTED,
  event: 'meeting.started',
  bodyFor: ({ deliveryId }) => bodyFor(deliveryId),
  staleSeconds: 900,
  expectedDeliveryId: (deliveryId) => `meeting.started:1635885799302:${createHash('sha256').update(bodyFor(deliveryId)).digest('hex').slice(0, 16)}`,
  sign: ({ body, key, timestamp, deliveryId }) => {
    const secret = key === 'wrong' ? WRONG : SECRETS[key];
    const signature = createHmac('sha256', secret)
      .update(Buffer.concat([Buffer.from(`v0:${timestamp}:`), body]))
      .digest('hex');
    return { 'x-zm-signature': `v0=${signature}`, 'x-zm-request-timestamp': String(timestamp), 'x-zm-trackingid': `v=2.0;clid=us06;rid=WEB_${deliveryId}` };
  },
  handshakes: [
    {
      name: 'endpoint.url_validation',
      body: URL_VALIDATION,
      expect: {
        status: 200,
        contentType: /application\/json/,
        body: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw', encryptedToken: createHmac('sha256', SECRETS[0]).update('qgg8vlvZRS6UYooatFL8Aw').digest('hex') },
      },
    },
  ],
});
