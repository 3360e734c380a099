// Requests as WeChat sends them to an Official Account's server URL: the plaintext-mode `signature` computed as the
// access guide defines it (sha1 of the sorted Token, timestamp and nonce), and safe-mode messages encrypted and
// signed with @wecom/crypto, Tencent's Node implementation of the WXBizMsgCrypt scheme both platforms use (its
// receiver id is the AppID here).
import { createHash, randomBytes } from 'node:crypto';
import { encrypt, getSignature } from '@wecom/crypto';
import { APP_ID, DOC_TOKEN, ENCODING_AES_KEY, envelope } from './fixtures/wechat-docs';

export interface WeChatSigning {
  token?: string;
  aesKey?: string;
  appId?: string;
  timestamp?: number;
}

const plainSignature = (token: string, timestamp: string, nonce: string): string =>
  createHash('sha1').update([token, timestamp, nonce].sort().join('')).digest('hex');

function signedParams(opts: WeChatSigning): Record<string, string> {
  const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = String(randomBytes(4).readUInt32BE(0));
  return { signature: plainSignature(opts.token ?? DOC_TOKEN, timestamp, nonce), timestamp, nonce };
}

/** The query of the GET URL check. */
export function urlCheckQuery(echostr: string, opts: WeChatSigning = {}): string {
  return new URLSearchParams({ ...signedParams(opts), echostr }).toString();
}

/** A plaintext-mode message POST: the query (signature, timestamp, nonce, openid) and the XML as it is. */
export function plainRequest(xml: string, openid: string, opts: WeChatSigning = {}): { query: string; body: string } {
  return { query: new URLSearchParams({ ...signedParams(opts), openid }).toString(), body: xml };
}

/** A safe-mode message POST: encrypt_type=aes, msg_signature over the ciphertext, the `<Encrypt>` envelope. */
export function safeRequest(xml: string, openid: string, opts: WeChatSigning = {}): { query: string; body: string } {
  const params = signedParams(opts);
  const encrypted = encrypt(opts.aesKey ?? ENCODING_AES_KEY, xml, opts.appId ?? APP_ID);
  const msgSignature = getSignature(opts.token ?? DOC_TOKEN, params.timestamp, params.nonce, encrypted);
  return { query: new URLSearchParams({ ...params, openid, encrypt_type: 'aes', msg_signature: msgSignature }).toString(), body: envelope(encrypted) };
}
