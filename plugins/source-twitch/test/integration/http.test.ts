// The over-HTTP conformance tests of @hookwise/testing for the Twitch EventSub source: a real gateway, requests signed
// with the documented algorithm (sha256=HMAC-SHA256 of message id + RFC3339 timestamp + body), the callback
// verification challenge and a revocation, with the example bodies of
// https://dev.twitch.tv/docs/eventsub/handling-webhook-events/.
import { createHmac } from 'node:crypto';
import { describeSourceOverHttp } from '@hookwise/testing';
import { SUBSCRIPTION, NOTIFICATION } from '../payload-samples';

const SECRETS: [string, string] = ['twitch-eventsub-secret-0123456789', 'twitch-eventsub-secret-old-987654'];
const WRONG = 'twitch-eventsub-secret-wrong-0000';

const CHALLENGE = `{"challenge":"pogchamp-kappa-360noscope-vohiyo","subscription":${SUBSCRIPTION('webhook_callback_verification_pending')}}`;
const REVOCATION = `{"subscription":${SUBSCRIPTION('authorization_revoked')}}`;

// The message type header is spelled the same here and in the handshakes, so a handshake's value replaces it.
const TYPE_HEADER = 'Twitch-Eventsub-Message-Type';

/** Seconds since the epoch as Twitch writes its timestamps: RFC3339 in UTC with nanoseconds. */
const rfc3339 = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');

describeSourceOverHttp('twitch', {
  source: 'twitch',
  secrets: SECRETS,
  body: NOTIFICATION,
  event: 'channel.follow',
  staleSeconds: 1200,
  sign: ({ body, key, timestamp, deliveryId }) => {
    const secret = key === 'wrong' ? WRONG : SECRETS[key];
    const time = rfc3339(timestamp);
    const signature = createHmac('sha256', secret)
      .update(Buffer.concat([Buffer.from(deliveryId + time), body]))
      .digest('hex');
    return {
      'Twitch-Eventsub-Message-Id': deliveryId,
      'Twitch-Eventsub-Message-Retry': '0',
      [TYPE_HEADER]: 'notification',
      'Twitch-Eventsub-Message-Signature': `sha256=${signature}`,
      'Twitch-Eventsub-Message-Timestamp': time,
      'Twitch-Eventsub-Subscription-Type': 'channel.follow',
      'Twitch-Eventsub-Subscription-Version': '2',
    };
  },
  handshakes: [
    {
      name: 'webhook_callback_verification',
      body: CHALLENGE,
      headers: { [TYPE_HEADER]: 'webhook_callback_verification' },
      expect: { status: 200, contentType: /^text\/plain/, body: 'pogchamp-kappa-360noscope-vohiyo' },
    },
    {
      name: 'revocation',
      body: REVOCATION,
      headers: { [TYPE_HEADER]: 'revocation' },
      expect: { status: 200, contentType: /application\/json/, body: { status: 'acknowledged', message_type: 'revocation' } },
    },
  ],
});
