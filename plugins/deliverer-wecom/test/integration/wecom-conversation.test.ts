// The wecom deliverer's conversation facet (issue 31) against a stand-in of the WeCom server API (gettoken, 发送应用消息
// message/send answered {"errcode":0,"errmsg":"ok","msgid":...}, developer.work.weixin.qq.com/document/path/90236):
// platform `wecom` (what source-wecom's replies say). A person's message to the app names no message it answers
// (消息格式, document/path/90239), so the facet is byChat and an answer to `user:<userid>` is recorded as that
// userid's latest, the chat source-wecom's replies name (FromUserName); the answer to a reply goes to that person.
import type { Deliverer } from '@hookwise/core';
import { VirtualClock } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, startRecordingServer, type RecordingServer } from '@hookwise/testing';
import { wecomPlatform, type WorkApiOptions } from '@hookwise/plugin-deliverer-wecom';

let server: RecordingServer;
beforeEach(async () => {
  server = await startRecordingServer((req) =>
    req.path === '/cgi-bin/gettoken'
      ? { json: { errcode: 0, errmsg: 'ok', access_token: 'wecom-token-conversation', expires_in: 7200 } }
      : { json: { errcode: 0, errmsg: 'ok', msgid: `msg${server.requests.length}` } },
  );
});
afterEach(() => server.close());

function setup(overrides: Partial<WorkApiOptions> = {}): Deliverer {
  const options: WorkApiOptions = {
    api_base: server.url,
    corp_id: 'ww0123456789abcdef',
    corp_secret: 'corpsecret-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2',
    agent_id: 1000002,
    timeout_seconds: 5,
    ...overrides,
  };
  return wecomPlatform.createDeliverer(options, createTestPluginContext().ctx, { clock: new VirtualClock() });
}
const sends = () => server.requests.filter((r) => r.path !== '/cgi-bin/gettoken');

describe('wecom conversation facet', () => {
  it('is byChat on platform wecom: an answer to user:<userid> is that userid latest', async () => {
    const deliverer = setup();
    const facet = deliverer.conversation!;
    expect([facet.platform, facet.byChat]).toEqual(['wecom', true]);
    const receipt = await deliverer.deliver(deliveryMessage('hi', { chat_id: 'user:zhangsan' }), deliverOptions());
    expect(receipt).toEqual({ target: 'user:zhangsan', ids: ['msg2'] });
    expect(facet.sentRefs!(receipt)).toEqual({ chat: 'zhangsan', refs: [{ platform: 'wecom', chat: 'zhangsan', messageId: '' }] });
  });

  it('records nothing where no reply can come back through the app: a department, a tag, an app chat, a group robot', () => {
    const facet = setup().conversation!;
    for (const target of ['party:2', 'tag:7', 'wrHomeChat', 'wecom']) expect(facet.sentRefs!({ target, ids: ['msg1'] })).toBeUndefined();
  });

  it('sends the answer to a reply to the person who wrote it, with message/send', async () => {
    const deliverer = setup();
    const extra = deliverer.conversation!.replyExtra({ platform: 'wecom', chat: 'zhangsan', messageId: '' }, { chat_id: '{no such field}', other: 'x' });
    expect(extra).toEqual({ chat_id: 'user:zhangsan', other: 'x' });
    await deliverer.deliver(deliveryMessage('the answer', extra), deliverOptions());
    expect(sends()[0].path).toBe('/cgi-bin/message/send');
    expect(sends()[0].json).toEqual({ touser: 'zhangsan', msgtype: 'text', agentid: 1000002, text: { content: 'the answer' } });
  });
});
