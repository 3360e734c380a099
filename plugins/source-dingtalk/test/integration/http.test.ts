// The over-HTTP conformance tests of @hookwise/testing for the DingTalk source: a real gateway whose route holds two
// app secrets (rotation), messages posted with the timestamp (epoch milliseconds) and sign headers DingTalk sends.
// The delivery id is the body's msgId: bodyFor() gives each kit delivery id a msgId of its own.
import { createHmac } from 'node:crypto';
import { describeSourceOverHttp } from '@hookwise/testing';
import { GROUP_TEXT } from '../fixtures/dingtalk-docs';

const SECRETS: [string, string] = ['app-secret-new-0123456789', 'app-secret-old-0123456789'];
const msgIdFor = (deliveryId: string) => `msg${deliveryId}`;

describeSourceOverHttp('dingtalk', {
  source: 'dingtalk',
  // A chat source's route names who may start a run (allow_from); anyone, for the conformance cases.
  route: { allow_from: ['*'] },
  secrets: SECRETS,
  body: JSON.stringify(GROUP_TEXT),
  event: 'text',
  bodyFor: ({ deliveryId }) => JSON.stringify({ ...GROUP_TEXT, msgId: msgIdFor(deliveryId) }),
  expectedDeliveryId: msgIdFor,
  sign: ({ key, timestamp }) => {
    const secret = key === 'wrong' ? 'not-the-app-secret-0123' : SECRETS[key];
    const ms = String(timestamp * 1000);
    return { timestamp: ms, sign: createHmac('sha256', secret).update(`${ms}\n${secret}`).digest('base64') };
  },
  // Just past DingTalk's one-hour window.
  staleSeconds: 3700,
});
