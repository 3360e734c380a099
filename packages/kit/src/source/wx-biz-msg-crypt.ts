// The callback scheme Tencent's WXBizMsgCrypt sample code implements, shared by WeCom app callbacks ("加解密方案说明")
// and WeChat Official Account messages in compatible or safe mode ("消息加解密说明"): msg_signature is the hex
// sha1 of the sorted, concatenated Token, timestamp, nonce and ciphertext; the ciphertext is base64 of AES-256-CBC
// with key = base64-decoded EncodingAESKey + "=", IV = the key's first 16 bytes, PKCS#7 padding to 32-byte blocks;
// the plain text is 16 random bytes, the message length (4 bytes, big-endian), the message, and the receiver id
// (WeCom's CorpID, an Official Account's AppID). The messages are flat XML, their query percent-encoded.
import { createDecipheriv, createHash } from 'node:crypto';
import type { SourceRequest, SourceVerdict } from '@hookwise/core';
import { constantTimeEqual, timestampProblem } from './signature';

/** A route secret of such a source: the Token and the EncodingAESKey, written `<Token>:<EncodingAESKey>`. */
export interface WxBizMsgKeys {
  token: string;
  aesKey: Buffer;
}

/** Token: letters and digits (up to 32); EncodingAESKey: 43 characters of base64 (a 32-byte key without its `=`). */
const SECRET = /^([A-Za-z0-9]{1,32}):([A-Za-z0-9+/]{43})$/;

/** The Token and the AES key of a route secret, or undefined when it is not written `<Token>:<EncodingAESKey>`. */
export function wxBizMsgKeys(secret: string): WxBizMsgKeys | undefined {
  const match = SECRET.exec(secret.trim());
  if (!match) return undefined;
  const aesKey = Buffer.from(`${match[2]}=`, 'base64');
  return aesKey.length === 32 ? { token: match[1], aesKey } : undefined;
}

/**
 * The hex sha1 of the parts sorted and joined: msg_signature over Token, timestamp, nonce and the ciphertext, and
 * an Official Account's plaintext `signature` over Token, timestamp and nonce alone.
 */
export function wxBizMsgSignature(...parts: string[]): string {
  return createHash('sha1')
    .update([...parts].sort().join(''), 'utf8')
    .digest('hex');
}

/** The message and the receiver id inside a ciphertext, or undefined when this key does not open it. */
export function wxBizMsgDecrypt(aesKey: Buffer, encrypted: string): { message: string; receiverId: string } | undefined {
  const data = Buffer.from(encrypted, 'base64');
  if (data.length === 0 || data.length % 16 !== 0) return undefined;
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-cbc', aesKey, aesKey.subarray(0, 16));
    // The scheme pads to 32-byte blocks, which Node's PKCS#7 (16-byte blocks) would refuse: removed below.
    decipher.setAutoPadding(false);
    plain = Buffer.concat([decipher.update(data), decipher.final()]);
  } catch {
    return undefined;
  }
  const pad = plain[plain.length - 1];
  if (pad < 1 || pad > 32 || pad > plain.length) return undefined;
  const content = plain.subarray(0, plain.length - pad);
  if (content.length < 20) return undefined;
  const length = content.readUInt32BE(16);
  if (20 + length > content.length) return undefined;
  return { message: content.subarray(20, 20 + length).toString('utf8'), receiverId: content.subarray(20 + length).toString('utf8') };
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const unescapeXml = (text: string): string =>
  text.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_m, name: string) =>
    name.startsWith('#x')
      ? String.fromCodePoint(parseInt(name.slice(2), 16))
      : name.startsWith('#')
        ? String.fromCodePoint(Number(name.slice(1)))
        : ENTITIES[name],
  );

/**
 * The elements of a flat `<xml>` message as strings (`<Content><![CDATA[hi]]></Content>` is `Content: 'hi'`).
 * An element that holds others (an event's `SendLocationInfo`) gives its children's names instead of itself.
 * Undefined when the text is no `<xml>` document.
 */
export function wxBizMsgXml(xml: string): Record<string, string> | undefined {
  const root = /^\s*(?:<\?xml[^>]*\?>\s*)?<xml>([\s\S]*)<\/xml>\s*$/.exec(xml);
  if (!root) return undefined;
  const fields: Record<string, string> = {};
  for (const m of root[1].matchAll(/<([A-Za-z_][\w.-]*)>(?:<!\[CDATA\[([\s\S]*?)\]\]>|([^<]*))<\/\1>/g)) {
    if (!(m[1] in fields)) fields[m[1]] = m[2] ?? unescapeXml(m[3] ?? '');
  }
  return fields;
}

/** The query of a URL as these callbacks write it: percent-decoded, a `+` kept (base64 echostr has them). */
export function wxBizMsgQuery(url: string): Record<string, string> {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1).split('#')[0] : '';
  const params: Record<string, string> = {};
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const [name, value] = at === -1 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
    try {
      params[decodeURIComponent(name)] ??= decodeURIComponent(value);
    } catch {
      /* a malformed escape is no parameter of the sender's */
    }
  }
  return params;
}

/** What an error names when a message cannot be opened: where the user finds the keys, the receiver's option. */
export interface WxBizMsgOpenOptions {
  /** Replay window of `timestamp`, in seconds. */
  toleranceSeconds: number;
  /** The receiver id every ciphertext must name (CorpID, AppID); unchecked when undefined. */
  receiverId?: string;
  /** The source option that holds receiverId, named when it does not match (`corp_id`, `app_id`). */
  receiverOption: string;
  /** Where the Token and EncodingAESKey are set, named in errors (`the app's "Receive messages" settings`). */
  settings: string;
}

/**
 * Checks msg_signature (in the request's query) over `encrypted` for each of the route's `<Token>:<EncodingAESKey>`
 * secrets (rotation), the timestamp's age, and opens it with the matching key, checking its receiver: the message
 * and the secret's position, or the refusal.
 */
export function openWxBizMsg(
  req: SourceRequest,
  encrypted: string,
  secrets: readonly string[],
  options: WxBizMsgOpenOptions,
): { index: number; message: string } | Extract<SourceVerdict, { ok: false }> {
  const { msg_signature: signature, timestamp, nonce } = wxBizMsgQuery(req.url);
  if (signature === undefined) return { ok: false, reason: `no msg_signature in the query (is the URL the one in ${options.settings}?)`, missing: true };
  if (timestamp === undefined || nonce === undefined) return { ok: false, reason: 'msg_signature comes without timestamp and nonce' };
  const stale = timestampProblem(timestamp, req.receivedAt, options.toleranceSeconds);
  if (stale) return { ok: false, reason: `timestamp: ${stale}` };
  const keys = secrets.map(wxBizMsgKeys);
  if (keys.every((k) => k === undefined)) {
    return { ok: false, reason: `the route's secret is not written <Token>:<EncodingAESKey> (${options.settings})` };
  }
  const index = keys.findIndex((k) => k !== undefined && constantTimeEqual(wxBizMsgSignature(k.token, timestamp, nonce, encrypted), signature.toLowerCase()));
  if (index === -1) return { ok: false, reason: `msg_signature does not match (is the route's secret the <Token>:<EncodingAESKey> of ${options.settings}?)` };
  const plain = wxBizMsgDecrypt((keys[index] as WxBizMsgKeys).aesKey, encrypted);
  if (!plain) return { ok: false, reason: 'msg_signature matches but the message does not decrypt with that EncodingAESKey' };
  if (options.receiverId !== undefined && !constantTimeEqual(plain.receiverId, options.receiverId)) {
    return { ok: false, reason: `the message is encrypted for ${plain.receiverId}, not for source_options.${options.receiverOption}` };
  }
  return { index, message: plain.message };
}
