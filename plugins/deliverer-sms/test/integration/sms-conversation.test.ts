// The sms deliverer's conversation facet (issue 31) against a Twilio Messages API stand-in (the create answer of
// https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource): platform `sms` (what
// source-twilio's replies say, though that source's id is `twilio`); an SMS names no message it answers, so the
// facet is byChat and the chat is the recipient in E.164, as Twilio writes an incoming SMS's From; the answer to a
// reply goes to that number.
import type { Deliverer } from '@hookwise/core';
import { VirtualClock } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import { smsPlatform, type SmsGatewayOptions } from '@hookwise/plugin-deliverer-sms';

const SID = `AC${'0123456789abcdef'.repeat(2)}`;
const MESSAGE_SID = `SM${'1'.padStart(32, '0')}`;

let server: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer(() => ({
    status: 201,
    json: { account_sid: SID, api_version: '2010-04-01', direction: 'outbound-api', num_segments: '1', sid: MESSAGE_SID, status: 'queued' },
  }));
});
afterEach(() => server.close());

function setup(overrides: Partial<SmsGatewayOptions> = {}): Deliverer {
  const options: SmsGatewayOptions = {
    api_base: server.url,
    account_sid: SID,
    auth_token: 'f00dbabe0123456789abcdef01234567',
    from: '+15005550006',
    home_channel: '+15551230000',
    timeout_seconds: 5,
    ...overrides,
  };
  return smsPlatform.createDeliverer(options, createTestPluginContext().ctx, { clock: new VirtualClock() });
}

describe('sms conversation facet', () => {
  it('is byChat on platform sms, its receipt naming the recipient in E.164 and the message sid', async () => {
    const deliverer = setup();
    expect([deliverer.conversation?.platform, deliverer.conversation?.byChat, deliverer.conversation?.sentRefs]).toEqual(['sms', true, undefined]);
    // The gateway's default reading of the receipt: each id, and '' (the chat's latest), in chat receipt.target.
    const receipt = await deliverer.deliver(deliveryMessage('hi', { chat_id: '+14017122661' }), deliverOptions());
    expect(receipt).toEqual({ target: '+14017122661', ids: [MESSAGE_SID] });
  });

  it('sends the answer to a reply to the number that wrote it', async () => {
    const deliverer = setup();
    const to = { platform: 'sms', chat: '+14017122661', messageId: '' };
    // A chat_id rendered from the reply's payload may say anything: the answer goes to who replied.
    const extra = deliverer.conversation!.replyExtra(to, { chat_id: '{no such field}' });
    expect(extra).toEqual({ chat_id: '+14017122661' });
    await deliverer.deliver(deliveryMessage('the answer', extra), deliverOptions());
    expect(server.requests[0].form).toEqual({ To: '+14017122661', From: '+15005550006', Body: 'the answer' });
  });

  it('leaves a chat_id naming that number, and a route that sends to home_channel, as they are', () => {
    const facet = setup().conversation!;
    const to = { platform: 'sms', chat: '+15551230000', messageId: '' };
    expect(facet.replyExtra(to, { chat_id: '+15551230000', other: 'x' })).toEqual({ chat_id: '+15551230000', other: 'x' });
    expect(facet.replyExtra(to, {})).toEqual({});
  });
});
