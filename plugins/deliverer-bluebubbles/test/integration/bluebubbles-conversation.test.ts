// The bluebubbles deliverer's conversation facet (issue 31) against a stand-in of the BlueBubbles server's send
// text API (POST /api/v1/message/text, answered {status: 200, message: "Message sent!", data: <the message>}):
// platform `bluebubbles` (what source-bluebubbles's replies say). An answer is recorded in its chat (a chat guid, as
// data.chats[0].guid of a webhook names it) under each part's guid and as the chat's latest (byChat); the answer to
// an inline reply is itself an inline reply to the same message (selectedMessageGuid and partIndex, the server's
// MessageValidator.sendTextRules), which needs the Private API: sent only with method private-api.
import type { Deliverer } from '@hookwise/core';
import { VirtualClock } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import { blueBubblesPlatform, type ServerApiOptions } from '@hookwise/plugin-deliverer-bluebubbles';

const CHAT = 'iMessage;-;+15555550123';
const ANSWERED = 'F3B2A1C0-9D8E-4F7A-B6C5-D4E3F2A1B0C9';

let server: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer(() => ({
    json: { status: 200, message: 'Message sent!', data: { guid: `0000000${server.requests.length}-AAAA-4BBB-8CCC-DDDDEEEEFFFF`, isFromMe: true } },
  }));
});
afterEach(() => server.close());

function setup(overrides: Partial<ServerApiOptions> = {}): Deliverer {
  const options: ServerApiOptions = { api_base: server.url, password: 'bb-password-42', home_channel: CHAT, timeout_seconds: 5, ...overrides };
  return blueBubblesPlatform.createDeliverer(options, createTestPluginContext().ctx, { clock: new VirtualClock() });
}
const body = (index: number) => server.requests[index].json as Record<string, unknown>;

describe('bluebubbles conversation facet', () => {
  it('is byChat on platform bluebubbles, its receipt naming the chat guid and the sent guid', async () => {
    const deliverer = setup();
    expect([deliverer.conversation?.platform, deliverer.conversation?.byChat, deliverer.conversation?.sentRefs]).toEqual(['bluebubbles', true, undefined]);
    // The gateway's default reading of the receipt: each guid, and '' (the chat's latest), in chat receipt.target.
    const receipt = await deliverer.deliver(deliveryMessage('hi', { chat_id: CHAT }), deliverOptions());
    expect(receipt).toEqual({ target: CHAT, ids: ['00000001-AAAA-4BBB-8CCC-DDDDEEEEFFFF'] });
  });

  it('answers an inline reply inline (selectedMessageGuid, partIndex 0) through the Private API, in the same chat', async () => {
    const deliverer = setup({ method: 'private-api' });
    const extra = deliverer.conversation!.replyExtra({ platform: 'bluebubbles', chat: CHAT, messageId: ANSWERED }, { chat_id: '{data.chats.0.guid}' });
    expect(extra).toEqual({ chat_id: CHAT, reply_to_message_guid: ANSWERED });
    await deliverer.deliver(deliveryMessage('the answer', extra), deliverOptions());
    expect(body(0)).toMatchObject({ chatGuid: CHAT, message: 'the answer', method: 'private-api', selectedMessageGuid: ANSWERED, partIndex: 0 });
  });

  it('answers a plain message (the chat latest, id "") in the chat, not inline', async () => {
    const deliverer = setup({ method: 'private-api' });
    const extra = deliverer.conversation!.replyExtra({ platform: 'bluebubbles', chat: CHAT, messageId: '' }, { reply_to_message_guid: ANSWERED });
    expect(extra).toEqual({ chat_id: CHAT });
    await deliverer.deliver(deliveryMessage('the answer', extra), deliverOptions());
    expect(body(0)).not.toHaveProperty('selectedMessageGuid');
  });

  it('sends no inline reply where the server sends with AppleScript (its default), which cannot make one', async () => {
    for (const method of [undefined, 'apple-script'] as const) {
      await setup({ method }).deliver(deliveryMessage('hi', { chat_id: CHAT, reply_to_message_guid: ANSWERED }), deliverOptions());
    }
    expect(server.requests.map((r) => [(r.json as Record<string, unknown>).selectedMessageGuid, (r.json as Record<string, unknown>).partIndex])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
    ]);
  });

  it('refuses a reply guid that is none before sending', async () => {
    const err = await rejectionOf(
      setup({ method: 'private-api' }).deliver(deliveryMessage('hi', { chat_id: CHAT, reply_to_message_guid: '../x' }), deliverOptions()),
    );
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(server.requests).toHaveLength(0);
    // Where no inline reply is sent, the value is left out and fails nothing.
    await setup().deliver(deliveryMessage('hi', { chat_id: CHAT, reply_to_message_guid: '../x' }), deliverOptions());
    expect(body(0)).not.toHaveProperty('selectedMessageGuid');
  });
});
