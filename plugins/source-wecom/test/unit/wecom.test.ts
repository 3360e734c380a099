// The WeCom source on the documentation's messages, signed and encrypted with WeCom's own library (@wecom/crypto):
// the secret format, the GET echostr check, the POST's msg_signature and decryption, the CorpID check, event type,
// delivery id and the reply a person's message is (no message id: the latest answer to that person).
import { decrypt, encrypt } from '@wecom/crypto';
import type { SourceRequest } from '@hookwise/core';
import { parseWeComXml, wecomDecrypt, wecomKeys, wecomReplyOf, wecomSenderOf, wecomSource } from '../../src';
import { CLICK_EVENT, CORP_ID, ENCODING_AES_KEY, TEXT_MESSAGE, TOKEN } from '../fixtures/wecom-docs';
import { messageRequest, urlCheckQuery } from '../wecom-sender';

const SECRET = `${TOKEN}:${ENCODING_AES_KEY}`;
const OLD_SECRET = 'OldToken1:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ';
const request = (query: string, init: { method?: string; body?: string } = {}): SourceRequest => ({
  headers: {},
  rawBody: Buffer.from(init.body ?? ''),
  url: `https://gw.example/webhooks/wecom?${query}`,
  receivedAt: Date.now(),
  method: init.method ?? 'POST',
});

describe('wecom source: keys and cryptography', () => {
  it('reads a secret written <Token>:<EncodingAESKey>, and nothing else', () => {
    expect(wecomKeys(SECRET)?.token).toBe(TOKEN);
    expect(wecomKeys(SECRET)?.aesKey).toHaveLength(32);
    expect(wecomKeys(ENCODING_AES_KEY)).toBeUndefined();
    expect(wecomKeys(`${TOKEN}:short`)).toBeUndefined();
  });

  it("decrypts what WeCom's library encrypts (32-byte padding), and the library decrypts the same", () => {
    for (const text of ['', 'x', TEXT_MESSAGE, '中文'.repeat(40)]) {
      const encrypted = encrypt(ENCODING_AES_KEY, text, CORP_ID);
      expect(wecomDecrypt(wecomKeys(SECRET)!.aesKey, encrypted)).toEqual({ message: text, receiverId: CORP_ID });
      expect(decrypt(ENCODING_AES_KEY, encrypted)).toMatchObject({ message: text, id: CORP_ID });
    }
    expect(wecomDecrypt(wecomKeys(OLD_SECRET)!.aesKey, encrypt(ENCODING_AES_KEY, TEXT_MESSAGE, CORP_ID))).toBeUndefined();
  });

  it('reads the flat XML, CDATA and escaped text alike', () => {
    expect(parseWeComXml(TEXT_MESSAGE)).toEqual({
      ToUserName: 'toUser',
      FromUserName: 'fromUser',
      CreateTime: '1348831860',
      MsgType: 'text',
      Content: 'this is a test',
      MsgId: '1234567890123456',
      AgentID: '1',
    });
    expect(parseWeComXml('<xml><Content>a &lt;b&gt; &amp; c</Content></xml>')).toEqual({ Content: 'a <b> & c' });
    expect(parseWeComXml('{"json": true}')).toBeUndefined();
  });
});

describe('wecom source: the GET URL check', () => {
  const source = wecomSource.create({ corp_id: CORP_ID });

  it('verifies msg_signature over echostr with either secret of a rotation and echoes echostr decrypted, as text', () => {
    const req = request(urlCheckQuery('1616140317555161061'), { method: 'GET' });
    expect(source.verify(req, [OLD_SECRET, SECRET])).toEqual({ ok: true, secretIndex: 1 });
    const payload = source.parse?.(req) ?? {};
    expect(source.handshake?.(req, payload, SECRET)).toEqual({ status: 200, body: '1616140317555161061', contentType: 'text/plain' });
  });

  it('refuses another Token, another CorpID, and a GET that is no URL check', () => {
    expect(source.verify(request(urlCheckQuery('1', { token: 'Other' }), { method: 'GET' }), [SECRET])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('msg_signature does not match'),
    });
    expect(source.verify(request(urlCheckQuery('1', { receiverId: 'wwother' }), { method: 'GET' }), [SECRET])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('corp_id'),
    });
    expect(source.verify(request('', { method: 'GET' }), [SECRET])).toMatchObject({ ok: false, missing: true });
  });

  it('keeps a + of an echostr sent without percent-encoding (base64 has them; a form decoder would make it a space)', () => {
    let query = urlCheckQuery('plus');
    for (let i = 0; i < 50 && !decodeURIComponent(query).includes('+'); i++) query = urlCheckQuery('plus');
    const raw = query.replace(/%2B/g, '+').replace(/%2F/g, '/').replace(/%3D/g, '=');
    expect(raw).toContain('+');
    const req = request(raw, { method: 'GET' });
    expect(source.verify(req, [SECRET])).toEqual({ ok: true, secretIndex: 0 });
    expect(source.handshake?.(req, source.parse?.(req) ?? {}, SECRET)).toMatchObject({ status: 200, body: 'plus' });
  });

  it('says what is wrong with a secret that is not <Token>:<EncodingAESKey>', () => {
    expect(source.verify(request(urlCheckQuery('1'), { method: 'GET' }), [ENCODING_AES_KEY])).toMatchObject({
      ok: false,
      reason: expect.stringContaining('<Token>:<EncodingAESKey>'),
    });
  });
});

describe('wecom source: messages', () => {
  const source = wecomSource.create({ corp_id: CORP_ID });

  it('verifies and decrypts the documented text message; reads MsgType and MsgId', () => {
    const { query, body } = messageRequest(TEXT_MESSAGE);
    const req = request(query, { body });
    expect(source.verify(req, [SECRET])).toEqual({ ok: true, secretIndex: 0 });
    const payload = source.parse?.(req) ?? {};
    expect(payload).toMatchObject({ FromUserName: 'fromUser', Content: 'this is a test' });
    expect(source.eventType?.(req, payload)).toBe('text');
    expect(source.deliveryId?.(req, payload)).toBe('1234567890123456');
    expect(source.eventAnswer).toEqual({ status: 200, body: '', contentType: 'text/plain' });
  });

  it('reads an event as event.<Event>, its delivery id from FromUserName and CreateTime', () => {
    const payload = parseWeComXml(CLICK_EVENT)!;
    const req = request('');
    expect(source.eventType?.(req, payload)).toBe('event.click');
    expect(source.deliveryId?.(req, payload)).toBe('FromUser:123456789:click');
  });

  it('refuses a message with a wrong signature, a stale timestamp, or no <Encrypt>', () => {
    const wrong = messageRequest(TEXT_MESSAGE, { token: 'Other' });
    expect(source.verify(request(wrong.query, { body: wrong.body }), [SECRET])).toMatchObject({ ok: false });
    const stale = messageRequest(TEXT_MESSAGE, { timestamp: Math.floor(Date.now() / 1000) - 7200 });
    expect(source.verify(request(stale.query, { body: stale.body }), [SECRET])).toMatchObject({ ok: false, reason: expect.stringContaining('s old') });
    expect(source.verify(request('', { body: TEXT_MESSAGE }), [SECRET])).toMatchObject({ ok: false, missing: true });
  });

  it("makes a person's message a reply to the latest answer to that person; an event is none", () => {
    expect(wecomReplyOf(parseWeComXml(TEXT_MESSAGE)!)).toEqual({
      to: { platform: 'wecom', chat: 'fromUser', messageId: '' },
      userId: 'fromUser',
      from: 'WeCom user fromUser',
      text: 'this is a test',
    });
    expect(wecomReplyOf(parseWeComXml(CLICK_EVENT)!)).toBeUndefined();
  });
});

describe('wecom senders', () => {
  it("names a member's message and event (a menu click) by FromUserName; the URL check names nobody", () => {
    expect(wecomSenderOf(parseWeComXml(TEXT_MESSAGE)!)).toEqual({ id: 'fromUser', from: 'WeCom user fromUser' });
    expect(wecomSource.create({}).senderOf?.(parseWeComXml(TEXT_MESSAGE)!)?.id).toBe('fromUser');
    expect(wecomSenderOf(parseWeComXml(CLICK_EVENT)!)).toEqual({ id: 'FromUser', from: 'WeCom user FromUser' });
    expect(wecomSenderOf({ FromUserName: 'sys', MsgType: 'event', Event: 'change_contact' })).toBeUndefined();
    expect(wecomSenderOf({ msg_signature: 'x', timestamp: '1', nonce: '2', echostr: 'e' })).toBeUndefined();
  });
});
