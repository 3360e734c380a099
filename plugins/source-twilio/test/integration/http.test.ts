// The over-HTTP conformance tests of @hookwise/testing for the Twilio source: a real gateway, requests signed by the
// Twilio SDK over the URL they are posted to, as Twilio signs the URL configured in its console.
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';
import { describeSourceOverHttp } from '@hookwise/testing';
import { INBOUND_SMS as DOCUMENTED_SMS } from '../fixtures/incoming-sms';

const TOKENS: [string, string] = ['f3d1c2b4a5968778695a4b3c2d1e0f00', '0a1b2c3d4e5f60718293a4b5c6d7e8f9'];
const WRONG = 'ffffffffffffffffffffffffffffffff';

// An incoming message with the parameters of https://www.twilio.com/docs/messaging/guides/webhook-request, as a form.
const INBOUND_SMS = new URLSearchParams(DOCUMENTED_SMS).toString();

describeSourceOverHttp('twilio', {
  source: 'twilio',
  // A chat source's route names who may start a run (allow_from); anyone, for the conformance cases.
  route: { allow_from: ['*'] },
  secrets: TOKENS,
  body: INBOUND_SMS,
  contentType: 'application/x-www-form-urlencoded',
  event: 'message.received',
  sign: ({ body, key, url, deliveryId }) => {
    const token = key === 'wrong' ? WRONG : TOKENS[key];
    const params = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
    return { 'X-Twilio-Signature': getExpectedTwilioSignature(token, url, params), 'I-Twilio-Idempotency-Token': deliveryId };
  },
});
