// Requests as Feishu sends them: the body encrypted with the Encrypt Key ("Receive and process events": base64 of
// a random 16-byte IV and AES-256-CBC with key sha256(Encrypt Key)), X-Lark-Signature over timestamp, nonce, Encrypt
// Key and the body. The SDK has no encryption of its own (only AESCipher.decrypt), so the tests encrypt here and
// check with the SDK that it reads what is sent.
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { feishuSignature } from '../src';

export function encryptFeishu(plain: string, encryptKey: string): string {
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', createHash('sha256').update(encryptKey).digest(), iv);
  return Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final()]).toString('base64');
}

/** The encrypted body of `event` and the headers Feishu signs it with (`signWith` defaults to `encryptKey`). */
export function feishuRequest(
  event: unknown,
  encryptKey: string,
  opts: { signWith?: string | null; timestamp?: number } = {},
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({ encrypt: encryptFeishu(JSON.stringify(event), encryptKey) });
  if (opts.signWith === null) return { body, headers: {} };
  const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = randomBytes(8).toString('hex');
  const signature = feishuSignature(timestamp, nonce, opts.signWith ?? encryptKey, body);
  return { body, headers: { 'x-lark-request-timestamp': timestamp, 'x-lark-request-nonce': nonce, 'x-lark-signature': signature } };
}
