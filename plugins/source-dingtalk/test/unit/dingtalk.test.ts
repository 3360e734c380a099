// The DingTalk source on the documentation's body: the sign header as DingTalk's documented algorithm makes it
// (base64 HmacSHA256 of timestamp + "\n" + app secret, keyed with the app secret), its hour-long window, event type,
// delivery id, and the reply a robot's message is (no message id: the latest answer in the conversation).
import { createHmac } from 'node:crypto';
import type { SourceRequest } from '@hookwise/core';
import { dingtalkReplyOf, dingtalkSenderOf, dingtalkSource } from '../../src';
import { GROUP_TEXT } from '../fixtures/dingtalk-docs';

const SECRETS = ['app-secret-new-0123456789', 'app-secret-old-0123456789'];
/** The documentation's sample computation, written out here so that the source's own function is not its own oracle. */
const docSign = (timestamp: string, secret: string) => createHmac('sha256', secret).update(`${timestamp}\n${secret}`).digest('base64');
const request = (headers: Record<string, string>, receivedAt = Date.now()): SourceRequest => ({
  headers,
  rawBody: Buffer.from(JSON.stringify(GROUP_TEXT)),
  url: 'https://gw.example/webhooks/dingtalk',
  receivedAt,
});

describe('dingtalk source', () => {
  const source = dingtalkSource.create();
  const now = String(Date.now());

  it('accepts the sign of either app secret of a rotation', () => {
    expect(source.verify(request({ timestamp: now, sign: docSign(now, SECRETS[0]) }), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(request({ timestamp: now, sign: docSign(now, SECRETS[1]) }), SECRETS)).toEqual({ ok: true, secretIndex: 1 });
  });

  it('refuses another secret, a sign of another timestamp, a timestamp over an hour away, and says what is missing', () => {
    expect(source.verify(request({ timestamp: now, sign: docSign(now, 'another-secret') }), SECRETS)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('AppSecret'),
    });
    expect(source.verify(request({ timestamp: String(Number(now) - 1), sign: docSign(now, SECRETS[0]) }), SECRETS)).toMatchObject({ ok: false });
    const old = String(Date.now() - 3_700_000);
    expect(source.verify(request({ timestamp: old, sign: docSign(old, SECRETS[0]) }), SECRETS)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('s old'),
    });
    expect(source.verify(request({ timestamp: now }), SECRETS)).toMatchObject({ ok: false, missing: true });
    expect(source.verify(request({ sign: docSign(now, SECRETS[0]) }), SECRETS)).toMatchObject({ ok: false, reason: expect.stringContaining('timestamp') });
  });

  it('reads msgtype and msgId', () => {
    const req = request({});
    expect(source.eventType?.(req, GROUP_TEXT)).toBe('text');
    expect(source.deliveryId?.(req, GROUP_TEXT)).toBe('msg0xxxxx');
  });

  it('makes the documented message a reply to the latest answer in its conversation, by its staff id', () => {
    expect(source.replyOf?.(GROUP_TEXT)).toEqual({
      to: { platform: 'dingtalk', chat: 'xxx', messageId: '' },
      userId: 'user123',
      from: 'DingTalk user user123 (杨xx)',
      text: '你好',
      alsoAllowedAs: ['$:LWCP_v1:$Ff09GIxxxxx'],
    });
  });

  it('reads a richText message, and makes no reply without a conversation', () => {
    const rich = {
      ...GROUP_TEXT,
      msgtype: 'richText',
      text: undefined,
      content: { richText: [{ text: 'deploy ' }, { downloadCode: 'x', type: 'picture' }, { text: 'now' }] },
    };
    expect(dingtalkReplyOf(rich)?.text).toBe('deploy now');
    expect(dingtalkReplyOf({ ...GROUP_TEXT, conversationId: undefined })).toBeUndefined();
  });
});

describe('dingtalk senders', () => {
  it('names senderStaffId, allowed by the senderId too', () => {
    expect(dingtalkSenderOf(GROUP_TEXT)).toEqual({ id: 'user123', from: 'DingTalk user user123 (杨xx)', alsoAllowedAs: ['$:LWCP_v1:$Ff09GIxxxxx'] });
    expect(dingtalkSource.create().senderOf?.(GROUP_TEXT)?.id).toBe('user123');
  });

  it('names the senderId of a sender outside the organisation (no senderStaffId), and nobody without either', () => {
    const { senderStaffId: _staff, ...outside } = GROUP_TEXT;
    expect(dingtalkSenderOf(outside)).toEqual({ id: '$:LWCP_v1:$Ff09GIxxxxx', from: 'DingTalk user $:LWCP_v1:$Ff09GIxxxxx (杨xx)' });
    const { senderId: _id, ...anonymous } = outside;
    expect(dingtalkSenderOf(anonymous)).toBeUndefined();
  });
});
