// Unit tests of the Standard Webhooks source: requests signed with the spec's own JS library (`standardwebhooks`).
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { HeaderMap, Source, SourceRequest, SourceVerdict } from '@hookwise/core';
import { createTestPluginContext } from '@hookwise/testing';
import { standardWebhooksKeys as signingKeys, v1Signatures } from '@hookwise/kit/source';
import plugin, { standardWebhooksSource } from '../../src';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const secrets = [newSecret(), newSecret()];
const now = Math.floor(Date.now() / 1000);
// The spec's example payload (standard-webhooks spec, "Signature scheme": a thin contact.created payload, minified).
const body = '{"type":"contact.created","timestamp":"2022-11-03T20:26:10.344522Z","data":{"id":"1f81eb52-5198-4599-803e-771906343485"}}';
const msgId = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';

const sign = (secret: string, id = msgId, ts = now, payload = body) => new Webhook(secret).sign(id, new Date(ts * 1000), payload);

function request(headers: HeaderMap, payload: string | Buffer = body, receivedAt = now * 1000): SourceRequest {
  return { headers, rawBody: Buffer.isBuffer(payload) ? payload : Buffer.from(payload), url: 'https://hooks.example.com/webhooks/sw', receivedAt };
}

function signed(secret: string, overrides: HeaderMap = {}, ts = now): HeaderMap {
  return { 'webhook-id': msgId, 'webhook-timestamp': String(ts), 'webhook-signature': sign(secret, msgId, ts), ...overrides };
}

const source = standardWebhooksSource.create();

describe('standard-webhooks source', () => {
  it('is contributed as source standard-webhooks (alias svix) with a tolerance and a secret encoding option', async () => {
    const [contribution] = plugin.contributes;
    expect(contribution).toMatchObject({ kind: 'source', id: 'standard-webhooks', aliases: ['svix'] });
    expect(standardWebhooksSource.optionsSchema.properties.tolerance_seconds).toMatchObject({ type: 'integer', default: 300 });
    expect(standardWebhooksSource.optionsSchema.properties.secret_encoding).toMatchObject({ enum: ['auto', 'base64', 'raw'], default: 'auto' });
    const created = (await contribution.create({ tolerance_seconds: 300, secret_encoding: 'auto' }, createTestPluginContext().ctx)) as Source;
    expect(created.headers[0]).toBe('webhook-signature');
  });

  it("matches the spec's published test vector (whsec_MfKQ9r8..., msg_p5jXN8AQM9LWM0D4loKWxJek, 1614265330)", () => {
    // Published with the spec's reference libraries; the JS library reproduces it.
    const vector = { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', ts: 1614265330, body: '{"test": 2432232314}' };
    const expected = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
    expect(sign(vector.secret, vector.id, vector.ts, vector.body)).toBe(expected);
    const headers = { 'webhook-id': vector.id, 'webhook-timestamp': String(vector.ts), 'webhook-signature': expected };
    expect(source.verify(request(headers, vector.body, vector.ts * 1000 + 10_000), [vector.secret])).toEqual({ ok: true, secretIndex: 0 });
    // The same secret pasted without its prefix still works (the reference libraries decode it the same way).
    expect(source.verify(request(headers, vector.body, vector.ts * 1000), ['MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'])).toEqual({ ok: true, secretIndex: 0 });
  });

  it('accepts a request signed by the SDK and names the secret that matched', () => {
    expect(source.verify(request(signed(secrets[0])), secrets)).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(request(signed(secrets[1])), secrets)).toEqual({ ok: true, secretIndex: 1 });
    // The SDK itself agrees with the request we accept.
    expect(new Webhook(secrets[0]).verify(body, signed(secrets[0]) as Record<string, string>)).toEqual(JSON.parse(body));
  });

  it("accepts Svix's own header names (svix-id, svix-timestamp, svix-signature)", () => {
    const headers = { 'svix-id': msgId, 'svix-timestamp': String(now), 'svix-signature': sign(secrets[0]) };
    expect(source.verify(request(headers), secrets)).toEqual({ ok: true, secretIndex: 0 });
    expect(source.deliveryId!(request(headers), JSON.parse(body))).toBe(msgId);
  });

  it('accepts any one of several space-separated signatures (the sender rotating its key), and skips v1a and unknown versions', () => {
    const list = `v1a,${randomBytes(64).toString('base64')} ${sign(newSecret())} v2,abc ${sign(secrets[1])}`;
    expect(source.verify(request(signed(secrets[0], { 'webhook-signature': list })), secrets)).toEqual({ ok: true, secretIndex: 1 });
    expect(v1Signatures(list)).toHaveLength(2);
  });

  it('refuses a request signed with a secret the route does not have', () => {
    const verdict = source.verify(request(signed(newSecret())), secrets);
    expect(verdict).toEqual({ ok: false, reason: 'no v1 signature matches' });
  });

  it('refuses a tampered body, a changed webhook-id and a changed timestamp (all three are signed)', () => {
    const headers = signed(secrets[0]);
    expect(source.verify(request(headers, body.replace('contact.created', 'contact.deleted')), secrets).ok).toBe(false);
    expect(source.verify(request({ ...headers, 'webhook-id': 'msg_other' }), secrets).ok).toBe(false);
    expect(source.verify(request({ ...headers, 'webhook-timestamp': String(now - 1) }), secrets).ok).toBe(false);
  });

  it('refuses a stale and a future timestamp with the replay-window reason, and honours tolerance_seconds', () => {
    const stale = source.verify(request(signed(secrets[0], {}, now - 301)), secrets) as Extract<SourceVerdict, { ok: false }>;
    expect(stale.ok).toBe(false);
    expect(stale.reason).toMatch(/s old \(tolerance 300 s\)/);
    const future = source.verify(request(signed(secrets[0], {}, now + 301)), secrets) as Extract<SourceVerdict, { ok: false }>;
    expect(future.reason).toMatch(/s in the future \(tolerance 300 s\)/);
    expect(source.verify(request(signed(secrets[0], {}, now - 290)), secrets).ok).toBe(true);
    const strict = standardWebhooksSource.create({ tolerance_seconds: 60 });
    expect(strict.verify(request(signed(secrets[0], {}, now - 120)), secrets).ok).toBe(false);
  });

  it('says missing when there is no signature header at all, and invalid when only id or timestamp is missing', () => {
    expect(source.verify(request({ 'content-type': 'application/json' }), secrets)).toEqual({
      ok: false,
      reason: 'missing webhook-signature (or svix-signature) header',
      missing: true,
    });
    const noId = source.verify(request(signed(secrets[0], { 'webhook-id': undefined })), secrets);
    expect(noId).toEqual({ ok: false, reason: expect.stringContaining('missing webhook-id') });
    const noTs = source.verify(request(signed(secrets[0], { 'webhook-timestamp': undefined })), secrets);
    expect(noTs).toEqual({ ok: false, reason: expect.stringContaining('missing webhook-timestamp') });
  });

  it.each<[string, HeaderMap]>([
    ['an empty signature', { 'webhook-signature': '' }],
    ['a signature without version', { 'webhook-signature': 'abc' }],
    ['a bare "v1,"', { 'webhook-signature': 'v1,' }],
    ['an array of signatures (first one wrong)', { 'webhook-signature': ['v1,AAAA', 'v1,BBBB'] }],
    ['non-ASCII signature', { 'webhook-signature': 'v1,ééé€€€' }],
    ['a 64 KiB signature', { 'webhook-signature': `v1,${'A'.repeat(64 * 1024)}` }],
    ['thousands of signatures', { 'webhook-signature': Array.from({ length: 5000 }, () => 'v1,AAAA').join(' ') }],
    ['a non-numeric timestamp', { 'webhook-timestamp': '2024-01-01T00:00:00Z' }],
    ['a 64 KiB timestamp', { 'webhook-timestamp': '9'.repeat(64 * 1024) }],
    ['a non-ASCII id', { 'webhook-id': 'mßg_€' }],
    ['an empty array', { 'webhook-signature': [] }],
  ])('refuses %s cleanly, without throwing', (_what, overrides) => {
    const verdict = source.verify(request(signed(secrets[0], overrides)), secrets);
    expect(verdict.ok).toBe(false);
    expect(typeof (verdict as { reason: string }).reason).toBe('string');
  });

  it('never matches with an unusable secret, and says so without printing it', () => {
    const badSecret = 'whsec_not*base64!';
    const verdict = source.verify(request(signed(secrets[0])), [badSecret, '']) as Extract<SourceVerdict, { ok: false }>;
    expect(verdict.ok).toBe(false);
    expect(verdict.reason).toContain('not a usable key');
    expect(verdict.reason).not.toContain(badSecret);
    expect(verdict.reason).not.toContain('not*base64');
  });

  it('reads secrets as the option says: raw bytes, base64 without prefix, and auto trying both', () => {
    const raw = 'legacy-secret-reused-from-the-old-scheme';
    const rawSigned = new Webhook(raw, { format: 'raw' }).sign(msgId, new Date(now * 1000), body);
    const headers = signed(secrets[0], { 'webhook-signature': rawSigned });
    expect(source.verify(request(headers), [raw])).toEqual({ ok: true, secretIndex: 0 });
    expect(standardWebhooksSource.create({ secret_encoding: 'raw' }).verify(request(headers), [raw]).ok).toBe(true);
    expect(standardWebhooksSource.create({ secret_encoding: 'base64' }).verify(request(headers), [raw]).ok).toBe(false);
    const bare = secrets[0].slice('whsec_'.length);
    expect(standardWebhooksSource.create({ secret_encoding: 'base64' }).verify(request(signed(secrets[0])), [bare]).ok).toBe(true);
    expect(standardWebhooksSource.create({ secret_encoding: 'raw' }).verify(request(signed(secrets[0])), [secrets[0]]).ok).toBe(false);
    expect(signingKeys('whsec_AAAA')).toHaveLength(1);
    expect(signingKeys('AAAA')).toHaveLength(2);
    expect(signingKeys('not base64!')).toHaveLength(1);
    expect(signingKeys('')).toHaveLength(0);
  });

  it('takes the event type from the payload `type` and the delivery id from webhook-id', () => {
    const req = request(signed(secrets[0]));
    expect(source.eventType!(req, JSON.parse(body))).toBe('contact.created');
    expect(source.eventType!(req, { data: {} })).toBeUndefined();
    expect(source.eventType!(req, { type: 42 })).toBeUndefined();
    expect(source.deliveryId!(req, JSON.parse(body))).toBe(msgId);
    expect(source.deliveryId!(request({}), {})).toBeUndefined();
  });

  it('has no handshake and no special parse: the spec posts JSON objects', () => {
    expect(source.handshake).toBeUndefined();
    expect(source.parse).toBeUndefined();
  });
});
