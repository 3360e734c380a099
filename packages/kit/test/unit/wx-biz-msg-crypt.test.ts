// The WXBizMsgCrypt scheme shared by the wecom and wechat sources: signatures on WeChat's documented examples
// ("消息推送" and "消息加解密说明", Token "AAAAA"), ciphertexts made by @wecom/crypto (Tencent's Node implementation),
// the 32-byte padding, and openWxBizMsg's refusals (missing signature, stale timestamp, wrong key, wrong receiver).
import { randomBytes } from 'node:crypto';
import { encrypt, getSignature } from '@wecom/crypto';
import type { SourceRequest } from '@hookwise/core';
import { openWxBizMsg, wxBizMsgDecrypt, wxBizMsgKeys, wxBizMsgQuery, wxBizMsgSignature } from '@hookwise/kit/source';

const KEY = 'kWxPEV2UEDyxWpmPdKC3F4dgPDmOvfKX1HGnEUDS1aR';
const SECRET = `AAAAA:${KEY}`;
const OPTIONS = { toleranceSeconds: 300, receiverId: 'wx1234567890abcdef', receiverOption: 'app_id', settings: 'the test settings' };

function signed(encrypted: string, token = 'AAAAA', timestamp = String(Math.floor(Date.now() / 1000))): SourceRequest {
  const nonce = '1514711492';
  const query = new URLSearchParams({ msg_signature: getSignature(token, timestamp, nonce, encrypted), timestamp, nonce });
  return { headers: {}, rawBody: Buffer.alloc(0), url: `/webhooks/x?${query.toString()}`, receivedAt: Date.now(), method: 'POST' };
}

describe('WXBizMsgCrypt in @hookwise/kit/source', () => {
  it("signs as WeChat's documented examples do (sha1 of the sorted parts)", () => {
    expect(wxBizMsgSignature('AAAAA', '1714036504', '1514711492')).toBe('f464b24fc39322e44b38aa78f5edd27bd1441696');
    expect(wxBizMsgSignature('AAAAA', '1714037059', '486452656')).toBe('899cf89e464efb63f54ddac96b0a0a235f53aa78');
    expect(wxBizMsgSignature('AAAAA', '1', '2', 'cipher')).toBe(getSignature('AAAAA', '1', '2', 'cipher'));
  });

  it('decrypts what @wecom/crypto encrypts, for every padding length, and nothing another key made', () => {
    const { aesKey } = wxBizMsgKeys(SECRET)!;
    for (let length = 0; length <= 40; length++) {
      const message = 'x'.repeat(length);
      expect(wxBizMsgDecrypt(aesKey, encrypt(KEY, message, 'wx1234567890abcdef'))).toEqual({ message, receiverId: 'wx1234567890abcdef' });
    }
    const other = wxBizMsgKeys(`AAAAA:${randomBytes(32).toString('base64').slice(0, 43)}`)!.aesKey;
    expect(wxBizMsgDecrypt(other, encrypt(KEY, 'hello', 'wx1234567890abcdef'))).toBeUndefined();
    expect(wxBizMsgDecrypt(aesKey, 'not base64 of blocks')).toBeUndefined();
  });

  it('keeps a + in the query (base64 has them)', () => {
    expect(wxBizMsgQuery('/x?echostr=a+b%2Bc&n=1#frag')).toEqual({ echostr: 'a+b+c', n: '1' });
  });

  it('opens a signed ciphertext for its receiver, and refuses the rest saying why', () => {
    const encrypted = encrypt(KEY, '<xml/>', 'wx1234567890abcdef');
    expect(openWxBizMsg(signed(encrypted), encrypted, ['Old1:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ', SECRET], OPTIONS)).toEqual({
      index: 1,
      message: '<xml/>',
    });
    const unsigned = { ...signed(encrypted), url: '/webhooks/x' };
    expect(openWxBizMsg(unsigned, encrypted, [SECRET], OPTIONS)).toMatchObject({ ok: false, missing: true });
    expect(openWxBizMsg(signed(encrypted, 'AAAAA', '1000'), encrypted, [SECRET], OPTIONS)).toMatchObject({ reason: expect.stringContaining('timestamp') });
    expect(openWxBizMsg(signed(encrypted, 'Other'), encrypted, [SECRET], OPTIONS)).toMatchObject({ reason: expect.stringContaining('does not match') });
    expect(openWxBizMsg(signed(encrypted), encrypted, ['AAAAA'], OPTIONS)).toMatchObject({ reason: expect.stringContaining('<Token>:<EncodingAESKey>') });
    const forOther = encrypt(KEY, '<xml/>', 'wxother');
    expect(openWxBizMsg(signed(forOther), forOther, [SECRET], OPTIONS)).toMatchObject({
      reason: 'the message is encrypted for wxother, not for source_options.app_id',
    });
  });
});
