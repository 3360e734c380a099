// The WeChat Official Account source on the documentation's requests and messages: the GET URL check and the
// plaintext push of the docs' own examples (Token "AAAAA"), safe-mode messages encrypted and signed by @wecom/crypto
// (the WXBizMsgCrypt scheme), the AppID check, a key-holding route refusing plaintext, event type, delivery id, and the
// reply a follower's message is (no message id: the latest answer to that openid).
import type { SourceRequest } from '@hookwise/core';
import { wechatDeliveryId, wechatEventType, wechatReplyOf, wechatSenderOf, wechatSource, wechatToken } from '../../src';
import { APP_ID, DOC_TOKEN, ENCODING_AES_KEY, PLAIN_PUSH, SUBSCRIBE_EVENT, TEXT_MESSAGE, URL_CHECK } from '../fixtures/wechat-docs';
import { plainRequest, safeRequest, urlCheckQuery } from '../wechat-sender';

const SAFE_SECRET = `${DOC_TOKEN}:${ENCODING_AES_KEY}`;
const OLD_SECRET = 'OldToken1:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ';
const OPENID = 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o';
const request = (query: string, init: { method?: string; body?: string; receivedAt?: number } = {}): SourceRequest => ({
  headers: {},
  rawBody: Buffer.from(init.body ?? ''),
  url: `https://gw.example/webhooks/wechat?${query}`,
  receivedAt: init.receivedAt ?? Date.now(),
  method: init.method ?? 'POST',
});

describe('wechat source: secrets', () => {
  it('takes the Token alone or <Token>:<EncodingAESKey>', () => {
    expect(wechatToken(DOC_TOKEN)).toBe(DOC_TOKEN);
    expect(wechatToken(SAFE_SECRET)).toBe(DOC_TOKEN);
    expect(wechatToken('no spaces allowed')).toBeUndefined();
    expect(wechatToken('ab')).toBeUndefined();
  });
});

describe('wechat source: the GET URL check', () => {
  const source = wechatSource.create({});

  it("verifies the docs' own URL check and echoes echostr as it came, as text", () => {
    const req = request(URL_CHECK.query, { method: 'GET', receivedAt: URL_CHECK.receivedAt });
    expect(source.verify(req, [DOC_TOKEN])).toEqual({ ok: true, secretIndex: 0 });
    // The same Token inside a <Token>:<EncodingAESKey> secret signs the check too (it is plain in every mode).
    expect(source.verify(req, [OLD_SECRET, SAFE_SECRET])).toEqual({ ok: true, secretIndex: 1 });
    expect(source.handshake?.(req, source.parse?.(req) ?? {}, DOC_TOKEN)).toEqual({ status: 200, body: URL_CHECK.echostr, contentType: 'text/plain' });
  });

  it('refuses another Token, an old timestamp, and a GET that is no check', () => {
    expect(source.verify(request(urlCheckQuery('1', { token: 'Other1' }), { method: 'GET' }), [DOC_TOKEN])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('signature does not match'),
    });
    expect(source.verify(request(URL_CHECK.query, { method: 'GET' }), [DOC_TOKEN])).toMatchObject({ ok: false, reason: expect.stringContaining('timestamp') });
    expect(source.verify(request('', { method: 'GET' }), [DOC_TOKEN])).toMatchObject({ ok: false, missing: true });
  });
});

describe('wechat source: plaintext mode', () => {
  const source = wechatSource.create({});

  it("verifies the docs' plaintext push by signature and reads the documented text message", () => {
    const req = request(PLAIN_PUSH.query, { body: TEXT_MESSAGE, receivedAt: PLAIN_PUSH.receivedAt });
    expect(source.verify(req, [DOC_TOKEN])).toEqual({ ok: true, secretIndex: 0 });
    const payload = source.parse?.(req) ?? {};
    expect(payload).toEqual({
      ToUserName: 'toUser',
      FromUserName: 'fromUser',
      CreateTime: '1348831860',
      MsgType: 'text',
      Content: 'this is a test',
      MsgId: '1234567890123456',
    });
    expect(source.eventType?.(req, payload)).toBe('text');
    expect(source.deliveryId?.(req, payload)).toBe('1234567890123456');
  });

  it('refuses no signature (missing), another Token, and a plaintext message to a route that holds the EncodingAESKey', () => {
    expect(source.verify(request('', { body: TEXT_MESSAGE }), [DOC_TOKEN])).toMatchObject({ ok: false, missing: true });
    expect(source.verify(request(plainRequest(TEXT_MESSAGE, OPENID, { token: 'Other1' }).query, { body: TEXT_MESSAGE }), [DOC_TOKEN])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('signature does not match'),
    });
    expect(source.verify(request(plainRequest(TEXT_MESSAGE, OPENID).query, { body: TEXT_MESSAGE }), [SAFE_SECRET])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('not encrypted'),
    });
  });
});

describe('wechat source: compatible and safe mode', () => {
  const source = wechatSource.create({ app_id: APP_ID });

  it('verifies msg_signature with either secret of a rotation and reads the decrypted message, not the body', () => {
    const sent = safeRequest(TEXT_MESSAGE.replace('fromUser', OPENID), OPENID);
    const req = request(sent.query, { body: sent.body });
    expect(source.verify(req, [OLD_SECRET, SAFE_SECRET])).toEqual({ ok: true, secretIndex: 1 });
    expect(source.parse?.(req)).toMatchObject({ FromUserName: OPENID, Content: 'this is a test', MsgId: '1234567890123456' });
  });

  it('refuses another Token, another AppID, a Token-only secret, and a message no secret verified', () => {
    const wrongToken = safeRequest(TEXT_MESSAGE, OPENID, { token: 'Other1' });
    expect(source.verify(request(wrongToken.query, { body: wrongToken.body }), [SAFE_SECRET])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('msg_signature does not match'),
    });
    const otherApp = safeRequest(TEXT_MESSAGE, OPENID, { appId: 'wxother0000000000' });
    expect(source.verify(request(otherApp.query, { body: otherApp.body }), [SAFE_SECRET])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('source_options.app_id'),
    });
    const sent = safeRequest(TEXT_MESSAGE, OPENID);
    expect(source.verify(request(sent.query, { body: sent.body }), [DOC_TOKEN])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('<Token>:<EncodingAESKey>'),
    });
    expect(() => source.parse?.(request(sent.query, { body: sent.body }))).toThrow(/encrypted/);
  });
});

describe('wechat source: events, delivery ids and replies', () => {
  const event = { ToUserName: 'toUser', FromUserName: 'FromUser', CreateTime: '123456789', MsgType: 'event', Event: 'subscribe' };

  it('types an event event.<Event> and dedupes it by FromUserName + CreateTime (and the Event), as the docs advise', () => {
    expect(wechatEventType(event)).toBe('event.subscribe');
    expect(wechatDeliveryId(event)).toBe('FromUser:123456789:subscribe');
    expect(wechatEventType({ MsgType: 'image' })).toBe('image');
  });

  it('reads the documented follow event through the source', () => {
    const source = wechatSource.create({});
    const sent = plainRequest(SUBSCRIBE_EVENT, 'FromUser');
    const req = request(sent.query, { body: sent.body });
    expect(source.verify(req, [DOC_TOKEN])).toEqual({ ok: true, secretIndex: 0 });
    expect(source.parse?.(req)).toEqual(event);
    expect(source.replyOf?.(event)).toBeUndefined();
  });

  it("makes a follower's message a reply to the latest answer to that openid", () => {
    expect(wechatReplyOf({ FromUserName: OPENID, MsgType: 'text', Content: 'why?', MsgId: '1' })).toEqual({
      to: { platform: 'wechat', chat: OPENID, messageId: '' },
      userId: OPENID,
      from: `WeChat user ${OPENID}`,
      text: 'why?',
    });
    expect(wechatReplyOf({ MsgType: 'text', Content: 'no sender' })).toBeUndefined();
  });

  it('answers every message taken with "success"', () => {
    expect(wechatSource.create({}).eventAnswer).toEqual({ status: 200, body: 'success', contentType: 'text/plain' });
  });
});

describe('wechat senders', () => {
  it("names a follower's message and event (a follow, a menu click) by its openid (FromUserName); the URL check names nobody", () => {
    expect(wechatSenderOf({ FromUserName: OPENID, MsgType: 'text', Content: 'why?', MsgId: '1' })).toEqual({ id: OPENID, from: `WeChat user ${OPENID}` });
    expect(wechatSource.create({}).senderOf?.({ FromUserName: OPENID, MsgType: 'text', Content: 'why?' })?.id).toBe(OPENID);
    expect(wechatSenderOf({ FromUserName: OPENID, MsgType: 'event', Event: 'subscribe' })).toEqual({ id: OPENID, from: `WeChat user ${OPENID}` });
    expect(wechatSenderOf({ signature: 'x', timestamp: '1', nonce: '2', echostr: 'e' })).toBeUndefined();
  });
});
