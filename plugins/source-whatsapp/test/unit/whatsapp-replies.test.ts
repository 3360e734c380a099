// What a WhatsApp notification is for conversations (issue 31), on the shapes of Meta's webhook reference: the text
// message that replies to another (fixtures/reply-message.json: messages[].context {from, id}), replies to a reply
// button and a list row (the "Interactive messages webhook reference": interactive.button_reply / list_reply, the
// context naming the message that carried the buttons), a template's quick-reply button (type "button") and a
// status notice, which is no message at all.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { whatsappMessageText, whatsappReplyOf, whatsappSenderOf, whatsappSource } from '../../src';

const payloadOf = (name: string) => JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', name), 'utf8')) as Record<string, unknown>;
const OURS = 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3NjA5QTA2QjQ1NkI3RDAzQjEA';

/** One incoming message in Meta's envelope, from 16505551234 (Sheena Nelson). */
const notification = (message: Record<string, unknown>, contacts: unknown[] = [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }]) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
            contacts,
            messages: [{ from: '16505551234', id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=', timestamp: '1739321024', ...message }],
          },
          field: 'messages',
        },
      ],
    },
  ],
});
const context = { context: { from: '15550783881', id: OURS } };

describe('whatsapp senders', () => {
  it("names the messages' sender (wa_id); a status update names nobody", () => {
    expect(whatsappSenderOf(notification({ type: 'text', text: { body: 'hi' } }))).toEqual({ id: '16505551234', from: 'WhatsApp user 16505551234' });
    const status = notification({});
    const value = (status.entry[0].changes[0] as { value: Record<string, unknown> }).value;
    delete value.messages;
    value.statuses = [{ id: OURS, status: 'delivered', recipient_id: '16505551234' }];
    expect(whatsappSenderOf(status)).toBeUndefined();
  });
});

describe('whatsapp replies', () => {
  it("reads a text message's context.id as the message it answers, in the sender's chat, named from contacts[].profile", () => {
    expect(whatsappReplyOf(payloadOf('reply-message.json'))).toEqual({
      to: { platform: 'whatsapp', chat: '16505551234', messageId: OURS },
      userId: '16505551234',
      from: 'WhatsApp user 16505551234 (Sheena Nelson)',
      text: 'why?',
      // The person's own message, which the answer quotes.
      message: { platform: 'whatsapp', chat: '16505551234', messageId: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUJGRDhCQjg5QzdCRTU2QTNBMgA=' },
    });
  });

  it('answers nothing for a message without context.id, a forwarded message, or a status notice', () => {
    expect(whatsappReplyOf(payloadOf('text-message.json'))).toBeUndefined();
    expect(whatsappReplyOf(notification({ type: 'text', text: { body: 'fwd' }, context: { forwarded: true } }))).toBeUndefined();
    expect(whatsappReplyOf(payloadOf('status-sent.json'))).toBeUndefined();
    expect(whatsappReplyOf({ object: 'whatsapp_business_account', entry: 'x' })).toBeUndefined();
  });

  it('reads the chosen title of a reply button or a list row, and the text of a quick-reply button', () => {
    const button = notification({
      ...context,
      type: 'interactive',
      interactive: { type: 'button_reply', button_reply: { id: 'cancel-button', title: 'Cancel' } },
    });
    expect(whatsappReplyOf(button)).toMatchObject({ to: { messageId: OURS }, text: 'Cancel' });
    const row = notification({
      ...context,
      type: 'interactive',
      interactive: { type: 'list_reply', list_reply: { id: 'priority_express', title: 'Priority Mail Express', description: 'Next Day to 2 Days' } },
    });
    expect(whatsappReplyOf(row)?.text).toBe('Priority Mail Express');
    const quick = notification({ ...context, type: 'button', button: { payload: 'stop-promos', text: 'Stop promotions' } });
    expect(whatsappReplyOf(quick)?.text).toBe('Stop promotions');
    expect(whatsappMessageText({ type: 'image', image: { caption: 'the error', mime_type: 'image/jpeg', id: '1' } })).toBe('the error');
    expect(whatsappMessageText({ type: 'location', location: { latitude: 1, longitude: 2 } })).toBe('');
  });

  it('names the sender by the contact whose wa_id is theirs, and by the number alone when no contact says', () => {
    const two = notification({ ...context, type: 'text', text: { body: 'hi' } }, [
      { profile: { name: 'Someone Else' }, wa_id: '15550000000' },
      { profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' },
    ]);
    expect(whatsappReplyOf(two)?.from).toBe('WhatsApp user 16505551234 (Sheena Nelson)');
    expect(whatsappReplyOf(notification({ ...context, type: 'text', text: { body: 'hi' } }, []))?.from).toBe('WhatsApp user 16505551234');
  });

  it('offers the reader to the gateway', () => {
    expect(whatsappSource.create({}).replyOf).toBe(whatsappReplyOf);
  });
});
