// WeCom's callback cryptography, as its "加解密方案说明" (encryption scheme) page documents it: msg_signature is the
// hex sha1 of the sorted, concatenated Token, timestamp, nonce and ciphertext; the ciphertext is base64 of
// AES-256-CBC with key = base64-decoded EncodingAESKey + "=", IV = the key's first 16 bytes, PKCS#7 padding to
// 32-byte blocks; the plain text is 16 random bytes, the message length (4 bytes, big-endian), the message, and the
// receiver id (the CorpID for an internal app). And the flat XML the messages are written in.
import { createDecipheriv, createHash } from 'node:crypto';

/** A route secret of the wecom source: the app's Token and EncodingAESKey, written `<Token>:<EncodingAESKey>`. */
export interface WeComKeys {
  token: string;
  aesKey: Buffer;
}

/** Token: letters and digits (up to 32); EncodingAESKey: 43 characters of base64 (a 32-byte key without its `=`). */
const SECRET = /^([A-Za-z0-9]{1,32}):([A-Za-z0-9+/]{43})$/;

/** The Token and the AES key of a route secret, or undefined when it is not written `<Token>:<EncodingAESKey>`. */
export function wecomKeys(secret: string): WeComKeys | undefined {
  const match = SECRET.exec(secret.trim());
  if (!match) return undefined;
  const aesKey = Buffer.from(`${match[2]}=`, 'base64');
  return aesKey.length === 32 ? { token: match[1], aesKey } : undefined;
}

/** msg_signature: hex sha1 of Token, timestamp, nonce and the ciphertext, sorted and joined. */
export function wecomSignature(token: string, timestamp: string, nonce: string, encrypted: string): string {
  return createHash('sha1').update([token, timestamp, nonce, encrypted].sort().join(''), 'utf8').digest('hex');
}

/** The message and the receiver id inside a ciphertext, or undefined when this key does not open it. */
export function wecomDecrypt(aesKey: Buffer, encrypted: string): { message: string; receiverId: string } | undefined {
  const data = Buffer.from(encrypted, 'base64');
  if (data.length === 0 || data.length % 16 !== 0) return undefined;
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-cbc', aesKey, aesKey.subarray(0, 16));
    // WeCom pads to 32-byte blocks, which Node's PKCS#7 (16-byte blocks) would refuse: the padding is removed below.
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
 * The elements of WeCom's flat `<xml>` message as strings (`<Content><![CDATA[hi]]></Content>` is `Content: 'hi'`).
 * An element that holds others (an event's `SendLocationInfo`) gives its children's names instead of itself.
 * Undefined when the text is no `<xml>` document.
 */
export function parseWeComXml(xml: string): Record<string, string> | undefined {
  const root = /^\s*(?:<\?xml[^>]*\?>\s*)?<xml>([\s\S]*)<\/xml>\s*$/.exec(xml);
  if (!root) return undefined;
  const fields: Record<string, string> = {};
  for (const m of root[1].matchAll(/<([A-Za-z_][\w.-]*)>(?:<!\[CDATA\[([\s\S]*?)\]\]>|([^<]*))<\/\1>/g)) {
    if (!(m[1] in fields)) fields[m[1]] = m[2] ?? unescapeXml(m[3] ?? '');
  }
  return fields;
}

/** The query of a URL as WeCom writes it: percent-decoded, a `+` kept (base64 echostr has them). */
export function queryParams(url: string): Record<string, string> {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1).split('#')[0] : '';
  const params: Record<string, string> = {};
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const [name, value] = at === -1 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
    try {
      params[decodeURIComponent(name)] ??= decodeURIComponent(value);
    } catch {
      /* a malformed escape is no parameter of WeCom's */
    }
  }
  return params;
}
