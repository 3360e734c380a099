// What a Twilio webhook is for conversations (issue 31), on Twilio's documented request parameters: an incoming SMS
// (https://www.twilio.com/docs/messaging/guides/webhook-request) is a reply in the chat of its From number, naming
// no message (SMS has none to name); a status callback of a sent message
// (https://www.twilio.com/docs/messaging/guides/track-outbound-message-status), a call and a message of another
// channel of the same webhook (From `whatsapp:+...`) are none.
import type { SourceRequest } from '@hookwise/core';
import { twilioReplyOf, twilioSenderOf, twilioSource } from '../../src';
import { INBOUND_SMS } from '../fixtures/incoming-sms';

describe('twilio senders', () => {
  it("names an incoming SMS's From; a status callback of a sent message names nobody", () => {
    expect(twilioSenderOf({ ...INBOUND_SMS })).toEqual({ id: '+14017122661', from: 'SMS sender +14017122661' });
    expect(twilioSenderOf({ ...INBOUND_SMS, SmsStatus: 'delivered', MessageStatus: 'delivered' })).toBeUndefined();
  });
});

describe('twilio replies', () => {
  it("reads an incoming SMS as a reply in its sender's chat, platform sms, naming no message", () => {
    expect(twilioReplyOf(INBOUND_SMS)).toEqual({
      to: { platform: 'sms', chat: '+14017122661', messageId: '' },
      userId: '+14017122661',
      from: 'SMS sender +14017122661',
      text: 'Is the build green?',
    });
  });

  it('reads the form as the source parses it, and an MMS without text as an empty reply', () => {
    const source = twilioSource.create();
    const req: SourceRequest = {
      url: 'https://h.example/webhooks/sms',
      rawBody: Buffer.from(new URLSearchParams(INBOUND_SMS).toString()),
      headers: {},
      receivedAt: 0,
    };
    expect(source.replyOf?.(source.parse!(req)!)).toMatchObject({ to: { platform: 'sms', chat: '+14017122661' }, text: 'Is the build green?' });
    const mms = { ...INBOUND_SMS, Body: '', NumMedia: '1', MediaUrl0: 'https://api.twilio.com/2010-04-01/Accounts/AC/Messages/MM/Media/ME', MessageSid: 'MMa' };
    expect(twilioReplyOf(mms)?.text).toBe('');
  });

  it('keeps opt-in and help words, and a sentence that only starts with stop, as replies', () => {
    for (const body of ['yes', 'HELP', 'START', 'stop the deploy please']) expect(twilioReplyOf({ ...INBOUND_SMS, Body: body })?.text).toBe(body);
    expect(twilioReplyOf({ ...INBOUND_SMS, Body: 'yes', OptOutType: 'START' })?.text).toBe('yes');
  });

  it.each([
    ['a status callback of a sent message', { ...INBOUND_SMS, Body: undefined, MessageStatus: 'delivered', SmsStatus: 'delivered' }],
    ['a status callback that carries the body', { ...INBOUND_SMS, MessageStatus: 'sent', SmsStatus: 'sent' }],
    ['an incoming call', { CallSid: 'CAc', AccountSid: 'ACx', From: '+14158675310', To: '+15558675310', CallStatus: 'ringing', Direction: 'inbound' }],
    ["a WhatsApp message through Twilio's WhatsApp channel", { ...INBOUND_SMS, From: 'whatsapp:+14017122661', To: 'whatsapp:+15558675310' }],
    ['a sender that is no number (an alphanumeric sender id)', { ...INBOUND_SMS, From: 'ACME' }],
    ['a Conversations event', { ...INBOUND_SMS, EventType: 'onMessageAdded' }],
    ['a message without its sid', { ...INBOUND_SMS, MessageSid: undefined, SmsSid: undefined }],
    ['a repeated From', { ...INBOUND_SMS, From: ['+14017122661', '+14017122662'] }],
    // Twilio's default opt-out keywords (https://help.twilio.com/hc/en-us/articles/223134027), and Advanced Opt-Out's own.
    ['an opt-out keyword', { ...INBOUND_SMS, Body: ' Stop ' }],
    ['another opt-out keyword', { ...INBOUND_SMS, Body: 'UNSUBSCRIBE' }],
    ['an Advanced Opt-Out match (OptOutType)', { ...INBOUND_SMS, Body: 'arrêt', OptOutType: 'STOP' }],
  ])('answers nothing for %s', (_what, payload) => {
    expect(twilioReplyOf(payload as Record<string, unknown>)).toBeUndefined();
  });
});
