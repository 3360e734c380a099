// The wechat deliverer's conversation facet: an answer sent to an openid is recorded as that follower's latest
// (byChat, id ''), the form source-wechat's replies point at, and the answer to a reply goes to the follower who wrote it.
import { wechatConversation } from '../../src';

const OPENID = 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o';

describe('wechat deliverer: conversations', () => {
  it("records an answer to an openid under that openid, on the source's platform", () => {
    expect(wechatConversation.platform).toBe('wechat');
    expect(wechatConversation.byChat).toBe(true);
    expect(wechatConversation.sentRefs?.({ target: OPENID, ids: [] })).toEqual({
      chat: OPENID,
      refs: [{ platform: 'wechat', chat: OPENID, messageId: '' }],
    });
    expect(wechatConversation.sentRefs?.({ target: 'not an openid' })).toBeUndefined();
    expect(wechatConversation.sentRefs?.({})).toBeUndefined();
  });

  it("sends the answer to a reply to the follower who wrote it, whatever the route's chat_id", () => {
    expect(wechatConversation.replyExtra({ platform: 'wechat', chat: OPENID, messageId: '' }, { chat_id: 'oOtherFollower000000000000', x: '1' })).toEqual({
      chat_id: OPENID,
      x: '1',
    });
  });
});
