// The feishu deliverer's conversation facet (issue 31) against a stand-in of the open platform: platform `feishu`
// (what source-feishu's replies say); an answer to a chat (oc_...) is recorded there under the message ids of its
// parts, as Send message (open.feishu.cn/document/server-docs/im-v1/message/create) answers them; a continuing
// answer goes out with Reply message (open.feishu.cn/document/server-docs/im-v1/message/reply: POST
// /open-apis/im/v1/messages/:message_id/reply, {content, msg_type, reply_in_thread?, uuid?}, the same shape as the
// official @larksuiteoapi/node-sdk's im.message.reply), answered with the reply's own data.message_id.
import type { Deliverer } from '@hookwise/core';
import { VirtualClock } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import { feishuPlatform, messageUuid, type OpenPlatformOptions } from '@hookwise/plugin-deliverer-feishu';

const TOKEN_PATH = '/open-apis/auth/v3/tenant_access_token/internal';
const CHAT = 'oc_5ce6d572455d361153b7xx51da133945';
const ANSWERED = 'om_dc13264520392913993dd051dba21dcf';

let server: RecordingServer;
let sent = 0;
beforeEach(async () => {
  sent = 0;
  server = await startRecordingServer((req) => {
    if (req.path === TOKEN_PATH) return { json: { code: 0, msg: 'ok', tenant_access_token: 't-g1044ab7conversation', expire: 7200 } };
    if (req.path.startsWith('/open-apis/bot/v2/hook/')) return { json: { code: 0, data: {}, msg: 'success' } };
    // Send message and Reply message answer with the message they created (the docs' response body, fewer fields).
    sent += 1;
    return { json: { code: 0, msg: 'success', data: { message_id: `om_sent${sent}`, msg_type: 'text', chat_id: CHAT, deleted: false, updated: false } } };
  });
});
afterEach(() => server.close());

function setup(overrides: Partial<OpenPlatformOptions> = {}): Deliverer {
  const options: OpenPlatformOptions = {
    api_base: server.url,
    app_id: 'cli_a1b2c3d4e5f6',
    app_secret: 'appsecret-4f8e2d1c9b7a6e5f4d3c2b1a',
    home_channel: CHAT,
    timeout_seconds: 5,
    ...overrides,
  };
  return feishuPlatform.createDeliverer(options, createTestPluginContext().ctx, { clock: new VirtualClock() });
}
const messages = () => server.requests.filter((r) => r.path !== TOKEN_PATH);

describe('feishu conversation facet', () => {
  it('records an answer to a chat under the message id of each part, on platform feishu', async () => {
    const facet = setup().conversation!;
    expect([facet.platform, facet.byChat]).toEqual(['feishu', undefined]);
    const receipt = await setup().deliver(deliveryMessage('hi', { chat_id: CHAT }), deliverOptions());
    expect(receipt).toEqual({ target: CHAT, ids: ['om_sent1'] });
    expect(facet.sentRefs!(receipt)).toEqual({ chat: CHAT, refs: [{ platform: 'feishu', chat: CHAT, messageId: 'om_sent1' }] });
  });

  it('records nothing it could not match: an answer to a person (the p2p chat id is unknown), a custom bot (no ids)', () => {
    const facet = setup().conversation!;
    expect(facet.sentRefs!({ target: 'ou_84aad35d084aa403a838cf73ee18467', ids: ['om_1'] })).toBeUndefined();
    expect(facet.sentRefs!({ target: 'someone@example.com', ids: ['om_1'] })).toBeUndefined();
    expect(facet.sentRefs!({ target: 'feishu', ids: [] })).toBeUndefined();
  });

  it('answers a reply with Reply message to the message the person answered, every part, in its chat', async () => {
    const deliverer = setup({ max_parts: 3 });
    const to = { platform: 'feishu', chat: CHAT, messageId: ANSWERED };
    const extra = deliverer.conversation!.replyExtra(to, { chat_id: '{event.message.chat_id}' });
    expect(extra).toEqual({ chat_id: CHAT, reply_to_message_id: ANSWERED });
    const text = `${'a'.repeat(14_000)}\n\n${'b'.repeat(14_000)}`;
    const receipt = await deliverer.deliver(deliveryMessage(text, extra), deliverOptions());
    expect(receipt).toEqual({ target: CHAT, ids: ['om_sent1', 'om_sent2'] });
    const [first, second] = messages();
    for (const [index, req] of [first, second].entries()) {
      expect([req.method, req.path, req.query.size]).toEqual(['POST', `/open-apis/im/v1/messages/${ANSWERED}/reply`, 0]);
      expect(req.headers.authorization).toBe('Bearer t-g1044ab7conversation');
      const body = req.json as { msg_type: string; content: string; uuid: string; reply_in_thread?: boolean };
      expect(body.msg_type).toBe('text');
      expect((JSON.parse(body.content) as { text: string }).text).toMatch(index === 0 ? /^a+$/ : /^b+$/);
      expect(body.uuid).toBe(messageUuid({ route: 'test-route', deliveryId: 'delivery-1', destination: 'feishu', index }));
      expect(body.reply_in_thread).toBeUndefined();
    }
  });

  it('replies in the thread when deliver_extra.reply_in_thread is "true"', async () => {
    await setup().deliver(deliveryMessage('hi', { chat_id: CHAT, reply_to_message_id: ANSWERED, reply_in_thread: 'true' }), deliverOptions());
    expect(messages()[0].json).toMatchObject({ reply_in_thread: true });
  });

  it.each([
    ['a message id that is none', { reply_to_message_id: 'om_../../chats' }],
    ['another path', { reply_to_message_id: '../messages' }],
    ['reply_in_thread that is no boolean', { reply_to_message_id: ANSWERED, reply_in_thread: 'yes' }],
  ])('refuses %s before sending anything', async (_what, extra) => {
    const err = await rejectionOf(setup().deliver(deliveryMessage('hi', { chat_id: CHAT, ...extra }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(messages()).toHaveLength(0);
  });

  it('a custom bot posts to its group as ever (it can reply to nothing)', async () => {
    const hook = `${server.url}/open-apis/bot/v2/hook/0f9e8d7c-6b5a-4321-9abc-def012345678`;
    const deliverer = setup({ app_id: undefined, app_secret: undefined, home_channel: undefined, webhook_url: hook });
    const receipt = await deliverer.deliver(deliveryMessage('hi', { reply_to_message_id: ANSWERED }), deliverOptions());
    expect(receipt).toEqual({ target: 'feishu', ids: [] });
    expect(server.requests.map((r) => r.path)).toEqual(['/open-apis/bot/v2/hook/0f9e8d7c-6b5a-4321-9abc-def012345678']);
    expect(deliverer.conversation!.sentRefs!(receipt)).toBeUndefined();
  });
});
