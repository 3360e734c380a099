// The BlueBubbles source: BlueBubbles signs nothing, so the secret in the webhook URL is the proof (constant-time,
// rotation); event type, delivery id, and the reply a new message is.
import type { SourceRequest } from '@hookwise/core';
import { bluebubblesReplyOf, bluebubblesSenderOf, bluebubblesSource } from '../../src';
import { NEW_MESSAGE_PLAIN, NEW_MESSAGE_REPLY, UPDATED_MESSAGE } from '../fixtures/bluebubbles-server';

const SECRETS = ['bb-url-secret-new-0123456789', 'bb-url-secret-old-0123456789'];
const request = (query: string): SourceRequest => ({
  headers: { 'content-type': 'application/json' },
  rawBody: Buffer.from(JSON.stringify(NEW_MESSAGE_REPLY)),
  url: `https://gw.example/webhooks/imessage${query}`,
  receivedAt: Date.now(),
});

describe('bluebubbles source', () => {
  const source = bluebubblesSource.create();

  it("accepts the secret of either route secret in ?secret= (or BlueBubbles' own ?password=)", () => {
    expect(source.verify(request(`?secret=${SECRETS[0]}`), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(request(`?password=${SECRETS[1]}`), SECRETS)).toEqual({ ok: true, secretIndex: 1 });
  });

  it('refuses another secret, and says what is missing when the URL has none', () => {
    expect(source.verify(request('?secret=guess'), SECRETS)).toEqual({ ok: false, reason: expect.stringContaining('does not match') });
    expect(source.verify(request(''), SECRETS)).toEqual({ ok: false, reason: expect.stringContaining('?secret='), missing: true });
  });

  it('reads the type, and the guid as the delivery id (an update: the guid and its dates)', () => {
    const req = request('');
    expect(source.eventType?.(req, NEW_MESSAGE_REPLY)).toBe('new-message');
    expect(source.deliveryId?.(req, NEW_MESSAGE_REPLY)).toBe('A8F1C1E2-4B5D-4E6F-8A9B-0C1D2E3F4A5B');
    expect(source.deliveryId?.(req, UPDATED_MESSAGE)).toBe('F3B2A1C0-9D8E-4F7A-B6C5-D4E3F2A1B0C9:1732579100000:1732579150000:0');
    expect(source.deliveryId?.(req, { type: 'typing-indicator', data: { display: true, guid: 'iMessage;-;+1' } })).toBeUndefined();
  });

  it('makes an inline reply a reply to its threadOriginatorGuid, in its chat, by the handle', () => {
    expect(source.replyOf?.(NEW_MESSAGE_REPLY)).toEqual({
      to: { platform: 'bluebubbles', chat: 'iMessage;-;+15555550123', messageId: 'F3B2A1C0-9D8E-4F7A-B6C5-D4E3F2A1B0C9' },
      userId: '+15555550123',
      from: 'iMessage user +15555550123',
      text: 'Yes, ship it',
      // The person's own message, which the answer replies to inline.
      message: { platform: 'bluebubbles', chat: 'iMessage;-;+15555550123', messageId: 'A8F1C1E2-4B5D-4E6F-8A9B-0C1D2E3F4A5B' },
    });
  });

  it("makes any other message of the chat continue its latest answer; not the gateway's own, a tapback or an update", () => {
    expect(bluebubblesReplyOf(NEW_MESSAGE_PLAIN)?.to).toEqual({ platform: 'bluebubbles', chat: 'iMessage;-;+15555550123', messageId: '' });
    // A plain message is answered plainly: no message of the person's to reply to inline.
    expect(bluebubblesReplyOf(NEW_MESSAGE_PLAIN)?.message).toBeUndefined();
    expect(bluebubblesReplyOf({ ...NEW_MESSAGE_PLAIN, data: { ...NEW_MESSAGE_PLAIN.data, isFromMe: true } })).toBeUndefined();
    const tapback = { ...NEW_MESSAGE_PLAIN, data: { ...NEW_MESSAGE_PLAIN.data, associatedMessageGuid: 'p:0/F3B2A1C0', associatedMessageType: 'love' } };
    expect(bluebubblesReplyOf(tapback)).toBeUndefined();
    expect(bluebubblesReplyOf(UPDATED_MESSAGE)).toBeUndefined();
  });
});

describe('bluebubbles senders', () => {
  it("names a new message's handle.address when someone else wrote it", () => {
    expect(bluebubblesSenderOf(NEW_MESSAGE_PLAIN)).toEqual({ id: '+15555550123', from: 'iMessage user +15555550123' });
    expect(bluebubblesSource.create().senderOf?.(NEW_MESSAGE_REPLY)?.id).toBe('+15555550123');
  });

  it("names nobody for the server's own messages (isFromMe), updates and other events", () => {
    expect(bluebubblesSenderOf({ ...NEW_MESSAGE_PLAIN, data: { ...NEW_MESSAGE_PLAIN.data, isFromMe: true } })).toBeUndefined();
    expect(bluebubblesSenderOf(UPDATED_MESSAGE)).toBeUndefined();
    expect(bluebubblesSenderOf({ type: 'typing-indicator', data: { display: true, guid: 'iMessage;-;+1' } })).toBeUndefined();
    expect(bluebubblesSenderOf({ type: 'new-message', data: { ...NEW_MESSAGE_PLAIN.data, handle: null } })).toBeUndefined();
  });
});
