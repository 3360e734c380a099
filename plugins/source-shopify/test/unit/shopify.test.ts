// Unit tests of the Shopify source against the documented algorithm (base64 HMAC-SHA256 of the raw body with the
// client secret, as in shopify.dev "Verify webhooks") and the documented example delivery. @shopify/shopify-api
// needs Node 22, so it is not the oracle here.
import { createHmac, randomBytes } from 'node:crypto';
import type { HeaderMap, Source, SourceRequest, SourceVerdict } from '@hookwise/core';
import { createTestPluginContext } from '@hookwise/testing';
import plugin, { shopifySource } from '../../src';
import { DELIVERY_HEADERS, PRODUCTS_UPDATE } from '../fixtures';

const secrets = [randomBytes(16).toString('hex'), `shpss_${randomBytes(16).toString('hex')}`];
/** What Shopify's documentation computes: crypto.createHmac('sha256', CLIENT_SECRET).update(rawBody).digest('base64'). */
const sign = (secret: string, body: string | Buffer = PRODUCTS_UPDATE) => createHmac('sha256', secret).update(body).digest('base64');

function request(headers: HeaderMap, body: string | Buffer = PRODUCTS_UPDATE): SourceRequest {
  return {
    headers: { 'content-type': 'application/json', ...headers },
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body),
    url: 'https://hooks.example.com/webhooks/shop',
    receivedAt: Date.now(),
  };
}
const signed = (secret = secrets[0], body: string | Buffer = PRODUCTS_UPDATE) =>
  request({ ...DELIVERY_HEADERS, 'x-shopify-hmac-sha256': sign(secret, body) }, body);

const source = shopifySource.create();

describe('shopify source', () => {
  it('is contributed as source shopify, without options (nothing is timestamped)', async () => {
    const [contribution] = plugin.contributes;
    expect(contribution).toMatchObject({ kind: 'source', id: 'shopify', optionsSchema: { type: 'object', additionalProperties: false, properties: {} } });
    const created = (await contribution.create({}, createTestPluginContext().ctx)) as Source;
    expect(created.headers[0]).toBe('x-shopify-hmac-sha256');
  });

  it('accepts the documented products/update delivery signed as documented, and names the matching secret', () => {
    expect(source.verify(signed(), secrets)).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(signed(secrets[1]), secrets)).toEqual({ ok: true, secretIndex: 1 });
  });

  it('signs the exact bytes: a non-ASCII body and an empty body verify, a re-serialised one does not', () => {
    const unicode = Buffer.from('{"title":"Café ☕ – 東京","id":1}');
    expect(source.verify(signed(secrets[0], unicode), secrets).ok).toBe(true);
    expect(source.verify(signed(secrets[0], ''), secrets).ok).toBe(true);
    const req = signed();
    expect(source.verify({ ...req, rawBody: Buffer.from(JSON.stringify(JSON.parse(PRODUCTS_UPDATE), null, 1)) }, secrets).ok).toBe(false);
  });

  it('refuses another secret and a tampered body', () => {
    const wrong = source.verify(signed('some-other-app-secret'), secrets) as Extract<SourceVerdict, { ok: false }>;
    expect(wrong.reason).toMatch(/^digest does not match/);
    const req = signed();
    expect(source.verify({ ...req, rawBody: Buffer.from(PRODUCTS_UPDATE.replace('29.99', '0.01')) }, secrets).ok).toBe(false);
  });

  it('has no replay window: X-Shopify-Triggered-At is not signed, so an old value is not a reason to refuse', () => {
    const req = signed();
    req.headers['x-shopify-triggered-at'] = '2001-01-01T00:00:00Z';
    expect(source.verify(req, secrets).ok).toBe(true);
  });

  it('says missing without X-Shopify-Hmac-Sha256', () => {
    expect(source.verify(request(DELIVERY_HEADERS), secrets)).toEqual({ ok: false, reason: 'missing x-shopify-hmac-sha256 header', missing: true });
  });

  it.each<[string, string | string[]]>([
    ['an empty value', ''],
    ['hex instead of base64', createHmac('sha256', 'x').update(PRODUCTS_UPDATE).digest('hex')],
    ['a truncated digest', sign(secrets[0]).slice(0, 20)],
    ['base64url characters', sign(secrets[0]).replace(/[+/]/g, '-').replace(/^./, '_')],
    ['non-ASCII', 'é'.repeat(44)],
    ['a 64 KiB value', 'A'.repeat(64 * 1024)],
    ['an array whose first value is wrong', ['A'.repeat(43) + '=', sign(secrets[0])]],
  ])('refuses %s cleanly, without throwing', (_what, value) => {
    const verdict = source.verify(request({ ...DELIVERY_HEADERS, 'x-shopify-hmac-sha256': value }), secrets);
    expect(verdict.ok).toBe(false);
    expect(typeof (verdict as { reason: string }).reason).toBe('string');
  });

  it('takes the event type from X-Shopify-Topic and the delivery id from X-Shopify-Webhook-Id (not the shared Event-Id)', () => {
    const req = signed();
    const payload = JSON.parse(PRODUCTS_UPDATE) as Record<string, unknown>;
    expect(source.eventType!(req, payload)).toBe('products/update');
    expect(source.deliveryId!(req, payload)).toBe('b54557e4-bdd9-4b37-8a5f-bf7d70bcd043');
    const bare = request({});
    expect(source.eventType!(bare, payload)).toBeUndefined();
    expect(source.deliveryId!(bare, payload)).toBeUndefined();
  });

  it('has no handshake and no special parse', () => {
    expect(source.handshake).toBeUndefined();
    expect(source.parse).toBeUndefined();
  });
});
