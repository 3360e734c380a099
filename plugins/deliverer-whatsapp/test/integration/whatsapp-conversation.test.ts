// The whatsapp deliverer's conversation facet (issue 31) against a Cloud API stand-in: the receipt names the sent
// messages by their wamids (the Messages API answer's messages[].id) in the recipient's chat, digits only as the
// webhooks' `from` is; an answer to a reply goes to the same person as a contextual reply (Meta's "Contextual
// replies": `context: {message_id: <wamid>}` in the send request), on its first part only.
import { deliverOptions, deliveryMessage, rejectionOf } from '@hookwise/testing';
import { server, setup, useCloudApiStandIn } from './cloud-api-stand-in';

const WAMID = 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUJGRDhCQjg5QzdCRTU2QTNBMgA=';

useCloudApiStandIn();

type Sent = { to: string; context?: { message_id: string }; text: { body: string } };
const sent = () => server.requests.map((r) => r.json as Sent);

describe('whatsapp conversation facet', () => {
  it("records every part's wamid in the recipient's chat, digits only (the reply's `from`)", async () => {
    const { deliverer } = setup();
    const facet = deliverer.conversation!;
    expect([facet.platform, facet.byChat]).toEqual(['whatsapp', undefined]);
    const receipt = await deliverer.deliver(deliveryMessage('hi', { chat_id: '+15557654321' }), deliverOptions());
    expect(receipt).toEqual({ target: '+15557654321', ids: ['wamid.1'] });
    expect(facet.sentRefs!(receipt)).toEqual({ chat: '15557654321', refs: [{ platform: 'whatsapp', chat: '15557654321', messageId: 'wamid.1' }] });
    expect(facet.sentRefs!({ target: '15557654321', ids: [] })).toBeUndefined();
  });

  it('sends the answer to a reply as a contextual reply to the same person, the first part only', async () => {
    const { deliverer } = setup();
    const to = { platform: 'whatsapp', chat: '16505551234', messageId: WAMID };
    // The route's chat_id rendered from the reply's payload may say anything: the answer goes to who replied.
    const extra = deliverer.conversation!.replyExtra(to, { chat_id: 'whatever the template made' });
    expect(extra).toEqual({ chat_id: '16505551234', reply_to_message_id: WAMID });
    const text = Array.from({ length: 90 }, (_, i) => `line ${i} ${'x'.repeat(90)}`).join('\n');
    await deliverer.deliver(deliveryMessage(text, extra), deliverOptions());
    const [first, ...rest] = sent();
    expect(first).toMatchObject({ to: '16505551234', context: { message_id: WAMID }, type: 'text' });
    expect(rest.length).toBeGreaterThan(0);
    for (const part of rest) expect([part.to, part.context]).toEqual(['16505551234', undefined]);
  });

  it('keeps the route chat_id as written when it names the same number, and home_channel routes as they are', () => {
    const facet = setup().deliverer.conversation!;
    const to = { platform: 'whatsapp', chat: '16505551234', messageId: WAMID };
    expect(facet.replyExtra(to, { chat_id: '+16505551234' })).toEqual({ chat_id: '+16505551234', reply_to_message_id: WAMID });
    expect(facet.replyExtra(to, {})).toEqual({ reply_to_message_id: WAMID });
  });

  it.each(['../../v21.0/other', 'wamid.1\nX-Injected: 1', '{"a":1}', ''.padEnd(300, 'a')])('refuses reply_to_message_id %j before sending', async (id) => {
    const err = await rejectionOf(setup().deliverer.deliver(deliveryMessage('hi', { chat_id: '15557654321', reply_to_message_id: id }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(err.message).toContain('reply_to_message_id');
    expect(server.requests).toHaveLength(0);
  });
});
