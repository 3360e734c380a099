// The dingtalk deliverer's conversation facet (issue 31): platform `dingtalk` (what source-dingtalk's replies say).
// A robot message names no message it answers (open.dingtalk.com/document/orgapp/receive-message), and the custom
// robot answers {"errcode":0,"errmsg":"ok"} with no message id and does not know its group's conversation id; so an
// answer is recorded as the latest of the conversation id the route names in deliver_extra.chat_id (the
// `conversationId` of the message it answers, e.g. cid5DEAySu/Fk+mtMwii4NLYQ==), and only then.
import type { Deliverer } from '@hookwise/core';
import { VirtualClock } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import { dingtalkPlatform, type CustomRobotOptions } from '@hookwise/plugin-deliverer-dingtalk';

const CONVERSATION = 'cid5DEAySu/Fk+mtMwii4NLYQ==';

let server: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer(() => ({ json: { errcode: 0, errmsg: 'ok' } }));
});
afterEach(() => server.close());

function setup(overrides: Partial<CustomRobotOptions> = {}): Deliverer {
  const options: CustomRobotOptions = { api_base: server.url, token: 'b4c1d2e3f4a5b6c7d8e9f0a1', msgtype: 'text', timeout_seconds: 5, ...overrides };
  return dingtalkPlatform.createDeliverer(options, createTestPluginContext().ctx, { clock: new VirtualClock() });
}

describe('dingtalk conversation facet', () => {
  it('records an answer as the latest of the conversation id the route gives', async () => {
    const deliverer = setup();
    const facet = deliverer.conversation!;
    expect([facet.platform, facet.byChat]).toEqual(['dingtalk', true]);
    const receipt = await deliverer.deliver(deliveryMessage('hi', { chat_id: CONVERSATION }), deliverOptions());
    expect(receipt).toEqual({ target: CONVERSATION, ids: [] });
    expect(facet.sentRefs!(receipt)).toEqual({ chat: CONVERSATION, refs: [{ platform: 'dingtalk', chat: CONVERSATION, messageId: '' }] });
    // The robot posts to its group as ever: the conversation id goes nowhere.
    expect(server.requests[0].url).not.toContain('cid');
    expect(server.requests[0].json).toEqual({ msgtype: 'text', text: { content: 'hi' } });
  });

  it('records nothing without a conversation id (no chat_id, or one meant for another destination)', async () => {
    const deliverer = setup();
    for (const extra of [{}, { chat_id: 'C0FIRST000' }] as Record<string, string>[]) {
      const receipt = await deliverer.deliver(deliveryMessage('hi', extra), deliverOptions());
      expect(deliverer.conversation!.sentRefs!(receipt)).toBeUndefined();
    }
  });

  it('refuses, with allowed_targets pinning the group, a message from another conversation (the answer would land in the group)', async () => {
    const deliverer = setup({ allowed_targets: [CONVERSATION] });
    await deliverer.deliver(deliveryMessage('hi', { chat_id: CONVERSATION }), deliverOptions());
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: 'cidOtherGroup0000000==' }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(server.requests).toHaveLength(1);
  });

  it('records the answer to a reply under the conversation it came from again', () => {
    const facet = setup().conversation!;
    expect(facet.replyExtra({ platform: 'dingtalk', chat: CONVERSATION, messageId: '' }, { chat_id: '{conversationId}' })).toEqual({ chat_id: CONVERSATION });
  });
});
