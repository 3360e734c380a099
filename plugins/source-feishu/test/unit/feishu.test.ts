// The Feishu source on the documentation's bodies: signatures and decryption as the official SDK
// (@larksuiteoapi/node-sdk) reads them, the url_verification handshake, the token check, event type, delivery id
// and the reply an im.message.receive_v1 message is.
import { AESCipher, EventDispatcher } from '@larksuiteoapi/node-sdk';
import type { SourceRequest } from '@hookwise/core';
import { decryptFeishu, feishuMessageText, feishuReplyOf, feishuSenderOf, feishuSource } from '../../src';
import { MESSAGE_RECEIVE, URL_VERIFICATION, VERIFICATION_TOKEN } from '../fixtures/feishu-docs';
import { encryptFeishu, feishuRequest } from '../feishu-sender';

const KEYS = ['encrypt-key-new-0123456789', 'encrypt-key-old-0123456789'];
const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, trace: () => undefined };
const request = (body: string, headers: Record<string, string> = {}, receivedAt = Date.now()): SourceRequest => ({
  headers,
  rawBody: Buffer.from(body),
  url: 'https://gw.example/webhooks/feishu',
  receivedAt,
});

describe('feishu source: verification', () => {
  const source = feishuSource.create({ verification_token: VERIFICATION_TOKEN });

  it('agrees with the official SDK: the SDK takes the signed, encrypted request, and so does the source (either secret)', async () => {
    for (const [index, key] of KEYS.entries()) {
      const { body, headers } = feishuRequest(MESSAGE_RECEIVE, key);
      const seen: unknown[] = [];
      const dispatcher = new EventDispatcher({ encryptKey: key, verificationToken: VERIFICATION_TOKEN, logger: quiet }).register({
        'im.message.receive_v1': (data: unknown) => void seen.push(data),
      });
      // The SDK's adapters hand it the parsed body with the headers on its prototype.
      await dispatcher.invoke(Object.assign(Object.create({ headers }) as object, JSON.parse(body) as object));
      expect(seen).toHaveLength(1);
      const req = request(body, headers);
      expect(source.verify(req, KEYS)).toEqual({ ok: true, secretIndex: index });
      expect(source.parse?.(req)).toEqual(MESSAGE_RECEIVE);
    }
  });

  it('decrypts as the SDK does', () => {
    const encrypt = encryptFeishu(JSON.stringify(MESSAGE_RECEIVE), KEYS[0]);
    expect(decryptFeishu(encrypt, KEYS[0])).toEqual(JSON.parse(new AESCipher(KEYS[0]).decrypt(encrypt)) as unknown);
    expect(decryptFeishu(encrypt, KEYS[1])).toBeUndefined();
  });

  it("refuses a signature made with another key, a stale timestamp, and a body whose token is not the app's", () => {
    const wrong = feishuRequest(MESSAGE_RECEIVE, KEYS[0], { signWith: 'another-key-0123456789' });
    expect(source.verify(request(wrong.body, wrong.headers), KEYS)).toEqual({ ok: false, reason: expect.stringContaining('Encrypt Key') });
    const stale = feishuRequest(MESSAGE_RECEIVE, KEYS[0], { timestamp: Math.floor(Date.now() / 1000) - 7200 });
    expect(source.verify(request(stale.body, stale.headers), KEYS)).toEqual({ ok: false, reason: expect.stringContaining('s old') });
    const other = feishuRequest({ ...MESSAGE_RECEIVE, header: { ...MESSAGE_RECEIVE.header, token: 'another-app-token' } }, KEYS[0]);
    expect(source.verify(request(other.body, other.headers), KEYS)).toEqual({ ok: false, reason: expect.stringContaining('Verification Token') });
  });

  it('says a signature is missing on an unsigned encrypted event, and refuses a body it cannot open', () => {
    const unsigned = feishuRequest(MESSAGE_RECEIVE, KEYS[0], { signWith: null });
    expect(source.verify(request(unsigned.body), KEYS)).toMatchObject({ ok: false, missing: true });
    const foreign = feishuRequest(URL_VERIFICATION, 'another-key-0123456789', { signWith: null });
    expect(source.verify(request(foreign.body), KEYS)).toMatchObject({ ok: false, reason: expect.stringContaining('does not open') });
    expect(source.verify(request('not json'), KEYS)).toMatchObject({ ok: false, missing: true });
  });

  it("takes an app without an Encrypt Key by the token in its plain body, the route's secret then", () => {
    const plain = feishuSource.create();
    expect(plain.verify(request(JSON.stringify(MESSAGE_RECEIVE)), ['other', VERIFICATION_TOKEN])).toEqual({ ok: true, secretIndex: 1 });
    expect(plain.verify(request(JSON.stringify(MESSAGE_RECEIVE)), KEYS)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("not the route's secret"),
    });
  });
});

describe('feishu source: the URL check', () => {
  const source = feishuSource.create({ verification_token: VERIFICATION_TOKEN });

  it('opens the encrypted url_verification and answers {"challenge"} as JSON, signed or not', () => {
    for (const signWith of [null, undefined]) {
      const { body, headers } = feishuRequest(URL_VERIFICATION, KEYS[1], { signWith });
      const req = request(body, headers);
      expect(source.verify(req, KEYS)).toEqual({ ok: true, secretIndex: 1 });
      const payload = source.parse?.(req) ?? {};
      expect(source.handshake?.(req, payload, KEYS[1])).toEqual({ status: 200, body: { challenge: 'ajls384kdjx98XX' } });
    }
  });

  it('answers nothing for an event (it is queued)', () => {
    expect(source.handshake?.(request('{}'), MESSAGE_RECEIVE, KEYS[0])).toBeUndefined();
    expect(source.eventAnswer).toEqual({ status: 200, body: {} });
  });
});

describe('feishu source: the event', () => {
  const source = feishuSource.create();
  const req = request('{}');

  it('reads header.event_type and header.event_id (schema 2.0), event.type and uuid (schema 1.0)', () => {
    expect(source.eventType?.(req, MESSAGE_RECEIVE)).toBe('im.message.receive_v1');
    expect(source.deliveryId?.(req, MESSAGE_RECEIVE)).toBe('5e3702a84e847582be8db7fb73283c02');
    const v1 = { uuid: 'u-1', token: 't', type: 'event_callback', event: { type: 'message' } };
    expect(source.eventType?.(req, v1)).toBe('message');
    expect(source.deliveryId?.(req, v1)).toBe('u-1');
  });

  it('makes a reply of the documented message: the parent_id it answers, in chat_id, by the open_id', () => {
    expect(source.replyOf?.(MESSAGE_RECEIVE)).toEqual({
      to: { platform: 'feishu', chat: 'oc_5ce6d572455d361153b7xx51da133945', messageId: 'om_5ce6d572455d361153b7cb5xxfsdfsdfdsf' },
      userId: 'ou_84aad35d084aa403a838cf73ee18467',
      from: 'Feishu user ou_84aad35d084aa403a838cf73ee18467',
      text: '@_user_1 hello',
      alsoAllowedAs: ['e33ggbyz', 'on_8ed6aa67826108097d9ee143816345'],
      // The person's own message, in the thread (topic) the documented example names.
      message: { platform: 'feishu', chat: 'oc_5ce6d572455d361153b7xx51da133945', messageId: 'om_5ce6d572455d361153b7cb51da133945', thread: 'omt_d4be107c616' },
    });
  });

  it("makes no reply of a message that answers nothing, of an app's message, or of another event", () => {
    const { root_id: _root, parent_id: _parent, ...fresh } = MESSAGE_RECEIVE.event.message;
    expect(feishuReplyOf({ ...MESSAGE_RECEIVE, event: { ...MESSAGE_RECEIVE.event, message: fresh } })).toBeUndefined();
    expect(
      feishuReplyOf({ ...MESSAGE_RECEIVE, event: { ...MESSAGE_RECEIVE.event, sender: { ...MESSAGE_RECEIVE.event.sender, sender_type: 'app' } } }),
    ).toBeUndefined();
    expect(feishuReplyOf(URL_VERIFICATION)).toBeUndefined();
  });

  it("reads a post's title and paragraphs as its text", () => {
    const post = JSON.stringify({
      title: 'Deploy',
      content: [
        [
          { tag: 'text', text: 'is it ' },
          { tag: 'a', text: 'done', href: 'https://x' },
        ],
        [{ tag: 'text', text: '?' }],
      ],
    });
    expect(feishuMessageText('post', post)).toBe('Deploy\nis it done\n?');
    expect(feishuMessageText('image', '{"image_key":"img_1"}')).toBe('');
  });
});

describe('feishu senders', () => {
  it("names a user's message by its open_id, allowed by the user_id and union_id too", () => {
    expect(feishuSenderOf(MESSAGE_RECEIVE)).toEqual({
      id: 'ou_84aad35d084aa403a838cf73ee18467',
      from: 'Feishu user ou_84aad35d084aa403a838cf73ee18467',
      alsoAllowedAs: ['e33ggbyz', 'on_8ed6aa67826108097d9ee143816345'],
    });
    expect(feishuSource.create({}).senderOf?.(MESSAGE_RECEIVE)?.id).toBe('ou_84aad35d084aa403a838cf73ee18467');
  });

  it("names nobody for an app's message, another event or the URL check", () => {
    const byApp = { ...MESSAGE_RECEIVE, event: { ...MESSAGE_RECEIVE.event, sender: { ...MESSAGE_RECEIVE.event.sender, sender_type: 'app' } } };
    expect(feishuSenderOf(byApp)).toBeUndefined();
    expect(feishuSenderOf({ ...MESSAGE_RECEIVE, header: { ...MESSAGE_RECEIVE.header, event_type: 'im.chat.member.bot.added_v1' } })).toBeUndefined();
    expect(feishuSenderOf(URL_VERIFICATION)).toBeUndefined();
  });
});
