import { createHmac } from 'node:crypto';
import { codehostAFixture } from '@hookwise/testing';
import plugin, { createGenericVerifier } from '../src';

const secret = 'generic-secret';
const body = codehostAFixture('workflow_run.completed');
const hex = (b: Buffer | string, s = secret) => createHmac('sha256', s).update(b).digest('hex');
const verifier = createGenericVerifier();

describe('generic verifier', () => {
  it('is a plugin contributing verifier generic on X-Webhook-Signature', () => {
    expect(plugin.contributes.map((c) => `${c.kind}:${c.id}`)).toEqual(['verifier:generic']);
    expect(verifier.headers).toEqual(['x-webhook-signature']);
  });

  it('accepts the raw hex HMAC-SHA256 of the body', () => {
    expect(verifier.verify({ headers: { 'x-webhook-signature': hex(body) }, rawBody: body }, secret)).toEqual({ ok: true });
  });

  it.each([
    ['a prefixed digest', () => `sha256=${hex(body)}`],
    ['a digest of other bytes', () => hex(Buffer.concat([body, Buffer.from(' ')]))],
    ['another secret', () => hex(body, 'x')],
    ['a wrong-length value', () => hex(body).slice(2)],
    ['non-ASCII', () => '✓'.repeat(64)],
  ])('rejects %s cleanly', (_what, value) => {
    expect(verifier.verify({ headers: { 'x-webhook-signature': value() }, rawBody: body }, secret).ok).toBe(false);
  });
});
