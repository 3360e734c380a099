// The over-HTTP conformance tests of @hookwise/testing for the SendGrid source: a real gateway whose route holds two
// verification (public) keys, batches signed here with P-256 private keys the way SendGrid signs them.
//
// SendGrid's delivery id comes from the body (the batch's sg_event_ids). bodyFor() does what SendGrid does for a new
// batch: the example with sg_event_ids of its own, derived from the kit's delivery id. The same kit id (a retry)
// gives the same bytes, another id another batch; expectedDeliveryId() applies the same rule.
import { createHash, generateKeyPairSync, sign as signEcdsa, type KeyObject } from 'node:crypto';
import { describeSourceOverHttp } from '@hookwise/testing';
import { batchOf } from '../payload-samples';

function keyPair(): { privateKey: KeyObject; base64: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { privateKey, base64: publicKey.export({ format: 'der', type: 'spki' }).toString('base64') };
}
const KEY = keyPair();
const OLD_KEY = keyPair();
const STRANGER = keyPair();

const BATCH = batchOf(['rbtnWrG1DVDGGGFHFyun0A==', 'sZROwMGMagFgnOEmSdvhig==']);

/** The two sg_event_ids of the batch for a kit delivery id. */
const eventIdsFor = (deliveryId: string) => [1, 2].map((n) => createHash('sha256').update(`${deliveryId}#${n}`).digest().subarray(0, 16).toString('base64'));

describeSourceOverHttp('sendgrid', {
  source: 'sendgrid',
  secrets: [KEY.base64, OLD_KEY.base64],
  body: BATCH,
  event: 'delivered',
  bodyFor: ({ deliveryId }) => batchOf(eventIdsFor(deliveryId)),
  staleSeconds: 900,
  expectedDeliveryId: (deliveryId) =>
    `batch-${createHash('sha256')
      .update([...eventIdsFor(deliveryId)].sort().join('\n'))
      .digest('hex')
      .slice(0, 32)}`,
  sign: ({ body, key, timestamp }) => {
    const pair = key === 'wrong' ? STRANGER : key === 0 ? KEY : OLD_KEY;
    const signature = signEcdsa('sha256', Buffer.concat([Buffer.from(String(timestamp)), body]), pair.privateKey).toString('base64');
    return { 'X-Twilio-Email-Event-Webhook-Signature': signature, 'X-Twilio-Email-Event-Webhook-Timestamp': String(timestamp) };
  },
});
