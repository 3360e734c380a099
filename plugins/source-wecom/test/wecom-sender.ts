// Requests as WeCom sends them, made with WeCom's own Node library (@wecom/crypto): the URL check's query, and a
// message's XML envelope with its msg_signature, timestamp and nonce in the query.
import { randomBytes } from 'node:crypto';
import { encrypt, getSignature } from '@wecom/crypto';
import { CORP_ID, ENCODING_AES_KEY, TOKEN, envelope } from './fixtures/wecom-docs';

export interface WeComSigning {
  token?: string;
  aesKey?: string;
  receiverId?: string;
  timestamp?: number;
}

function signedQuery(encrypted: string, opts: WeComSigning, extra: Record<string, string> = {}): string {
  const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = randomBytes(5).toString('hex');
  const signature = getSignature(opts.token ?? TOKEN, timestamp, nonce, encrypted);
  return new URLSearchParams({ msg_signature: signature, timestamp, nonce, ...extra }).toString();
}

/** The query of WeCom's GET check: echostr is `plain` encrypted for the CorpID. */
export function urlCheckQuery(plain: string, opts: WeComSigning = {}): string {
  const echostr = encrypt(opts.aesKey ?? ENCODING_AES_KEY, plain, opts.receiverId ?? CORP_ID);
  return signedQuery(echostr, opts, { echostr });
}

/** A message POST: its query and its XML body. */
export function messageRequest(xml: string, opts: WeComSigning = {}): { query: string; body: string } {
  const encrypted = encrypt(opts.aesKey ?? ENCODING_AES_KEY, xml, opts.receiverId ?? CORP_ID);
  return { query: signedQuery(encrypted, opts), body: envelope(encrypted) };
}
