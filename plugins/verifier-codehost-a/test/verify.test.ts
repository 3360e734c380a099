import { createHmac } from 'node:crypto';
import { codehostAFixture } from '@hookwise/testing';
import plugin, { createCodehostAVerifier } from '../src';

const secret = 'It\'s a Secret to Everybody';
const body = codehostAFixture('push');
const sign = (b: Buffer | string, s = secret) => `sha256=${createHmac('sha256', s).update(b).digest('hex')}`;
const verifier = createCodehostAVerifier();

describe('codehost_a verifier', () => {
  it('is a plugin contributing verifier codehost_a on X-CodeHostA-Signature-256', () => {
    expect(plugin.contributes.map((c) => `${c.kind}:${c.id}`)).toEqual(['verifier:codehost_a']);
    expect(verifier.headers).toEqual(['x-codehosta-signature-256']);
  });

  it('accepts the sha256= HMAC of the exact bytes of a real payload, in either hex case', () => {
    expect(verifier.verify({ headers: { 'x-codehosta-signature-256': sign(body) }, rawBody: body }, secret)).toEqual({ ok: true });
    expect(verifier.verify({ headers: { 'x-codehosta-signature-256': sign(body).toUpperCase().replace('SHA256=', 'sha256=') }, rawBody: body }, secret)).toEqual({ ok: true });
  });

  it('matches the documented example digest of "Hello, World!"', () => {
    // The code host's documentation example: secret "It's a Secret to Everybody", payload "Hello, World!".
    const result = verifier.verify({ headers: { 'x-codehosta-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17' }, rawBody: Buffer.from('Hello, World!') }, secret);
    expect(result).toEqual({ ok: true });
  });

  it.each([
    ['a re-serialised body', () => sign(JSON.stringify(JSON.parse(body.toString())))],
    ['another secret', () => sign(body, 'other')],
    ['a missing prefix', () => sign(body).slice(7)],
    ['a sha1 prefix', () => sign(body).replace('sha256=', 'sha1=')],
    ['a short digest', () => 'sha256=abcd'],
    ['non-hex characters', () => `sha256=${'g'.repeat(64)}`],
    ['non-ASCII characters', () => `sha256=${'é'.repeat(64)}`],
    ['an empty value', () => ''],
  ])('rejects %s cleanly, without throwing', (_what, value) => {
    const result = verifier.verify({ headers: { 'x-codehosta-signature-256': value() }, rawBody: body }, secret);
    expect(result.ok).toBe(false);
  });
});
