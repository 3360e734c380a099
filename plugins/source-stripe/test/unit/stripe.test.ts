// Unit tests of the Stripe source: headers made by Stripe's own SDK (generateTestHeaderString), checked against constructEvent.
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import type { HeaderMap, Source, SourceRequest, SourceVerdict } from '@hookwise/core';
import { createTestPluginContext } from '@hookwise/testing';
import plugin, { stripeSource } from '../../src';
import { EVENT_EXAMPLE } from '../fixtures';

const stripe = new Stripe('sk_test_not_used_for_network');
const newSecret = () => `whsec_${randomBytes(24).toString('hex')}`;
const secrets = [newSecret(), newSecret()];
const now = Math.floor(Date.now() / 1000);

const body = EVENT_EXAMPLE;

const header = (secret: string, timestamp = now, payload = body) => stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });

function request(headers: HeaderMap, payload: string = body, receivedAt = now * 1000): SourceRequest {
  return { headers, rawBody: Buffer.from(payload), url: 'https://hooks.example.com/webhooks/stripe', receivedAt };
}

const source = stripeSource.create();

describe('stripe source', () => {
  it('is contributed as source stripe, reads Stripe-Signature, and offers tolerance_seconds (default 300)', async () => {
    const [contribution] = plugin.contributes;
    expect(contribution).toMatchObject({ kind: 'source', id: 'stripe' });
    expect(stripeSource.optionsSchema.properties.tolerance_seconds).toMatchObject({ type: 'integer', default: 300 });
    const created = (await contribution.create({ tolerance_seconds: 300 }, createTestPluginContext().ctx)) as Source;
    expect(created.headers).toEqual(['stripe-signature']);
  });

  it("accepts the documented Event signed by Stripe's SDK, which agrees (constructEvent)", () => {
    const signature = header(secrets[0]);
    expect(source.verify(request({ 'stripe-signature': signature }), secrets)).toEqual({ ok: true, secretIndex: 0 });
    expect(stripe.webhooks.constructEvent(body, signature, secrets[0]).id).toBe('evt_1NG8Du2eZvKYlo2CUI79vXWy');
  });

  it('names the second secret of a rotation, and accepts a header carrying one v1 per secret (Stripe rolling the secret)', () => {
    expect(source.verify(request({ 'stripe-signature': header(secrets[1]) }), secrets)).toEqual({ ok: true, secretIndex: 1 });
    const v1Old = header(newSecret()).split(',')[1];
    const both = `${header(secrets[1])},${v1Old}`;
    expect(source.verify(request({ 'stripe-signature': both }), secrets)).toEqual({ ok: true, secretIndex: 1 });
  });

  it('ignores v0 (legacy test-mode) signatures, even a correct one', () => {
    const v0Only = stripe.webhooks.generateTestHeaderString({ payload: body, secret: secrets[0], timestamp: now, scheme: 'v0' });
    expect(source.verify(request({ 'stripe-signature': v0Only }), secrets)).toEqual({ ok: false, reason: 'Stripe-Signature has no v1 signature' });
  });

  it('refuses another secret, a tampered body and a changed t=', () => {
    const wrong = source.verify(request({ 'stripe-signature': header(newSecret()) }), secrets) as Extract<SourceVerdict, { ok: false }>;
    expect(wrong.ok).toBe(false);
    expect(wrong.reason).toMatch(/^no v1 signature matches/);
    const signature = header(secrets[0]);
    expect(source.verify(request({ 'stripe-signature': signature }, body.replace('requires_confirmation', 'succeeded')), secrets).ok).toBe(false);
    expect(source.verify(request({ 'stripe-signature': signature.replace(`t=${now}`, `t=${now - 1}`) }), secrets).ok).toBe(false);
    // The body must be the exact bytes: re-serialised JSON does not verify.
    expect(source.verify(request({ 'stripe-signature': signature }, JSON.stringify(JSON.parse(body))), secrets).ok).toBe(false);
  });

  it('refuses stale and future timestamps with the replay-window reason, and honours tolerance_seconds', () => {
    const stale = source.verify(request({ 'stripe-signature': header(secrets[0], now - 301) }), secrets) as Extract<SourceVerdict, { ok: false }>;
    expect(stale.reason).toMatch(/the timestamp is 301 s old \(tolerance 300 s\)/);
    // Stripe's SDK only checks the age; a future t= is refused here too (clock skew or a forged header).
    const future = source.verify(request({ 'stripe-signature': header(secrets[0], now + 301) }), secrets) as Extract<SourceVerdict, { ok: false }>;
    expect(future.reason).toMatch(/301 s in the future \(tolerance 300 s\)/);
    expect(source.verify(request({ 'stripe-signature': header(secrets[0], now - 299) }), secrets).ok).toBe(true);
    expect(stripeSource.create({ tolerance_seconds: 30 }).verify(request({ 'stripe-signature': header(secrets[0], now - 60) }), secrets).ok).toBe(false);
    expect(stripeSource.create({ tolerance_seconds: 3600 }).verify(request({ 'stripe-signature': header(secrets[0], now - 600) }), secrets).ok).toBe(true);
  });

  it('says missing when there is no Stripe-Signature header', () => {
    expect(source.verify(request({ 'content-type': 'application/json' }), secrets)).toEqual({
      ok: false,
      reason: 'missing stripe-signature header',
      missing: true,
    });
  });

  it('reads the documented header layout (t=, v1=, v0=) without matching a body it was not made for', () => {
    // docs.stripe.com/webhooks "Verify signatures manually": the example Stripe-Signature header.
    const documented =
      't=1492774577,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd,v0=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39';
    const verdict = source.verify(request({ 'stripe-signature': documented }, body, 1492774577 * 1000), secrets) as Extract<SourceVerdict, { ok: false }>;
    expect(verdict.ok).toBe(false);
    expect(verdict.reason).toMatch(/^no v1 signature matches/);
  });

  it.each<[string, HeaderMap]>([
    ['an empty value', { 'stripe-signature': '' }],
    ['no t=', { 'stripe-signature': `v1=${'a'.repeat(64)}` }],
    ['a non-numeric t=', { 'stripe-signature': `t=yesterday,v1=${'a'.repeat(64)}` }],
    ['no v1=', { 'stripe-signature': `t=${now}` }],
    ['a short v1', { 'stripe-signature': `t=${now},v1=abcd` }],
    ['non-hex v1', { 'stripe-signature': `t=${now},v1=${'z'.repeat(64)}` }],
    ['non-ASCII', { 'stripe-signature': `t=${now},v1=${'é'.repeat(64)}` }],
    ['an array of headers', { 'stripe-signature': [`t=${now},v1=${'a'.repeat(64)}`, 'x'] }],
    ['a 64 KiB value', { 'stripe-signature': `t=${now},v1=${'a'.repeat(64 * 1024)}` }],
    ['thousands of v1 items', { 'stripe-signature': `t=${now},` + Array.from({ length: 4000 }, () => `v1=${'a'.repeat(64)}`).join(',') }],
    ['only separators', { 'stripe-signature': ',,,=,=,' }],
  ])('refuses %s cleanly, without throwing', (_what, headers) => {
    const verdict = source.verify(request(headers), secrets);
    expect(verdict.ok).toBe(false);
    expect(typeof (verdict as { reason: string }).reason).toBe('string');
  });

  it('takes the event type from `type` and the delivery id from the event id (evt_...)', () => {
    const req = request({ 'stripe-signature': header(secrets[0]) });
    const payload = JSON.parse(body) as Record<string, unknown>;
    expect(source.eventType!(req, payload)).toBe('setup_intent.created');
    expect(source.deliveryId!(req, payload)).toBe('evt_1NG8Du2eZvKYlo2CUI79vXWy');
    expect(source.eventType!(req, {})).toBeUndefined();
    expect(source.deliveryId!(req, { id: 7 })).toBeUndefined();
  });

  it('never puts a secret in a reason', () => {
    for (const verdict of [
      source.verify(request({ 'stripe-signature': header(newSecret()) }), secrets),
      source.verify(request({ 'stripe-signature': header(secrets[0], now - 999) }), secrets),
    ]) {
      const reason = (verdict as { reason: string }).reason;
      for (const secret of secrets) expect(reason).not.toContain(secret);
    }
  });

  it('has no handshake: Stripe sends no endpoint verification request', () => {
    expect(source.handshake).toBeUndefined();
  });
});
