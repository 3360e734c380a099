// The generic style: a hex HMAC-SHA256 of the body in X-Webhook-Signature, X-Request-ID as delivery id.
import { createHmac } from 'node:crypto';
import type { SourceRequest } from '@hookwise/core';
import { genericSource } from '../../src';

const body = Buffer.from('{"event_type":"deploy","service":"api"}');
const request = (headers: Record<string, string>): SourceRequest => ({ headers, rawBody: body, url: 'http://localhost/webhooks/r', receivedAt: Date.now() });
const hex = (secret: string) => createHmac('sha256', secret).update(body).digest('hex');

describe('generic source', () => {
  const secrets = ['generic-new-0123456789', 'generic-old-0123456789'];

  it('verifies the hex digest (any case) against each secret', () => {
    const source = genericSource.create();
    expect(source.verify(request({ 'x-webhook-signature': hex(secrets[0]) }), secrets)).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(request({ 'x-webhook-signature': hex(secrets[1]).toUpperCase() }), secrets)).toEqual({ ok: true, secretIndex: 1 });
    expect(source.verify(request({ 'x-webhook-signature': hex('another-secret-0123') }), secrets)).toEqual({ ok: false, reason: 'digest does not match' });
    expect(source.verify(request({ 'x-webhook-signature': 'zz' }), secrets)).toEqual({ ok: false, reason: 'x-webhook-signature is not a 64-digit hex digest' });
    expect(source.verify(request({}), secrets)).toMatchObject({ ok: false, missing: true });
  });

  it('reads X-Request-ID as the delivery id and leaves the event type to the payload', () => {
    const source = genericSource.create();
    expect(source.deliveryId?.(request({ 'x-request-id': 'req-7' }), {})).toBe('req-7');
    expect(source.eventType).toBeUndefined();
  });
});
