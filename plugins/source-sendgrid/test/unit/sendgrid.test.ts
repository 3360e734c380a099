// Unit tests of the SendGrid source: the published test vector of SendGrid's own SDK, and requests signed here with a
// P-256 key pair, with @sendgrid/eventwebhook (EventWebhook.verifySignature) as the oracle.
import { generateKeyPairSync, sign as signEcdsa, type KeyObject } from 'node:crypto';
import { EventWebhook } from '@sendgrid/eventwebhook';
import type { SourceRequest } from '@hookwise/core';
import { PluginRegistry } from '@hookwise/gateway';
import plugin, { sendgridSource, sendgridPublicKey } from '../../src';

interface Pair {
  privateKey: KeyObject;
  /** The verification key as SendGrid shows it: base64 of the DER SubjectPublicKeyInfo. */
  base64: string;
  pem: string;
}
function keyPair(curve = 'prime256v1'): Pair {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: curve });
  return {
    privateKey,
    base64: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    pem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}
const SENDGRID = keyPair();
const OLD_KEY = keyPair();
const STRANGER = keyPair();

// Two events in the shape of https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/event
// ("processed" and "delivered" examples), sg_event_id and sg_message_id filled in.
const BATCH =
  '[{"email":"example@test.com","timestamp":1513299569,"smtp-id":"<14c5d75ce93.dfd.64b469@ismtpd-555>","event":"processed","category":"cat facts","sg_event_id":"rbtnWrG1DVDGGGFHFyun0A==","sg_message_id":"14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0"},' +
  '{"email":"example@test.com","timestamp":1513299569,"smtp-id":"<14c5d75ce93.dfd.64b469@ismtpd-555>","event":"delivered","category":"cat facts","sg_event_id":"sZROwMGMagFgnOEmSdvhig==","sg_message_id":"14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0","response":"250 OK"}]';

const NOW = Date.UTC(2024, 2, 1, 9, 30, 0);
const nowSeconds = String(Math.floor(NOW / 1000));
const signWith = (pair: Pair, timestamp: string, body: string) => signEcdsa('sha256', Buffer.from(timestamp + body), pair.privateKey).toString('base64');
const request = (body: string, headers: SourceRequest['headers'], receivedAt = NOW): SourceRequest => ({
  url: 'https://hooks.example.com/webhooks/sendgrid',
  rawBody: Buffer.from(body),
  headers,
  receivedAt,
});
const signed = (body = BATCH, { pair = SENDGRID, timestamp = nowSeconds, receivedAt = NOW } = {}) =>
  request(body, { 'x-twilio-email-event-webhook-signature': signWith(pair, timestamp, body), 'x-twilio-email-event-webhook-timestamp': timestamp }, receivedAt);
const source = sendgridSource.create();

describe('sendgrid source: verify', () => {
  it("accepts the test vector of SendGrid's Node SDK (packages/eventwebhook/src/eventwebhook.spec.js)", () => {
    const publicKey = 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEEDr2LjtURuePQzplybdC+u4CwrqDqBaWjcMMsTbhdbcwHBcepxo7yAQGhHPTnlvFYPAZFceEu/1FwCM/QmGUhA==';
    const payload = JSON.stringify({ category: 'example_payload', event: 'test_event', message_id: 'message_id' });
    const headers = {
      'x-twilio-email-event-webhook-signature': 'MEUCIQCtIHJeH93Y+qpYeWrySphQgpNGNr/U+UyUlBkU6n7RAwIgJTz2C+8a8xonZGi6BpSzoQsbVRamr2nlxFDWYNH2j/0=',
      'x-twilio-email-event-webhook-timestamp': '1588788367',
    };
    expect(source.verify(request(payload, headers, 1588788367_000), [publicKey])).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(request('payload', headers, 1588788367_000), [publicKey]).ok).toBe(false);
  });

  it('accepts what @sendgrid/eventwebhook accepts: a signature by the account key', () => {
    const req = signed();
    const ew = new EventWebhook();
    expect(
      ew.verifySignature(ew.convertPublicKeyToECDSA(SENDGRID.base64), BATCH, req.headers['x-twilio-email-event-webhook-signature'] as string, nowSeconds),
    ).toBe(true);
    expect(source.verify(req, [SENDGRID.base64])).toEqual({ ok: true, secretIndex: 0 });
  });

  it('reports which verification key of a rotation matched, and reads a key given as PEM', () => {
    expect(source.verify(signed(BATCH, { pair: OLD_KEY }), [SENDGRID.base64, OLD_KEY.base64])).toEqual({ ok: true, secretIndex: 1 });
    expect(source.verify(signed(), [SENDGRID.pem])).toEqual({ ok: true, secretIndex: 0 });
  });

  it('refuses a signature by another key, as the SDK does', () => {
    const req = signed(BATCH, { pair: STRANGER });
    const ew = new EventWebhook();
    expect(
      ew.verifySignature(ew.convertPublicKeyToECDSA(SENDGRID.base64), BATCH, req.headers['x-twilio-email-event-webhook-signature'] as string, nowSeconds),
    ).toBe(false);
    expect(source.verify(req, [SENDGRID.base64, OLD_KEY.base64])).toEqual({ ok: false, reason: "the signature does not verify with the route's public keys" });
  });

  it('refuses a changed body or timestamp', () => {
    const good = signed();
    expect(source.verify({ ...good, rawBody: Buffer.from(BATCH.replace('250 OK', '550 NO')) }, [SENDGRID.base64]).ok).toBe(false);
    expect(
      source.verify({ ...good, headers: { ...good.headers, 'x-twilio-email-event-webhook-timestamp': String(Number(nowSeconds) + 1) } }, [SENDGRID.base64]).ok,
    ).toBe(false);
  });

  it('names by position a secret that is not a P-256 public key (another curve, an HMAC secret)', () => {
    const otherCurve = keyPair('secp256k1').base64;
    const hmacSecret = 'an-hmac-secret-not-a-key';
    const verdict = source.verify(signed(), [otherCurve, hmacSecret]);
    expect(verdict).toEqual({ ok: false, reason: expect.stringContaining('secrets #1, #2 of the route are not a P-256 public key') });
    expect(verdict.ok || verdict.reason.includes(hmacSecret)).toBe(false);
    expect(sendgridPublicKey(otherCurve)).toBeUndefined();
    expect(source.verify(signed(), [hmacSecret, SENDGRID.base64])).toEqual({ ok: true, secretIndex: 1 });
  });

  it('refuses a request older than the window (300 s by default), and one from the future', () => {
    expect(source.verify(signed(BATCH, { receivedAt: NOW + 301_000 }), [SENDGRID.base64])).toEqual({
      ok: false,
      reason: expect.stringContaining('301 s old (tolerance 300 s)'),
    });
    expect(source.verify(signed(BATCH, { receivedAt: NOW - 301_000 }), [SENDGRID.base64])).toEqual({
      ok: false,
      reason: expect.stringContaining('in the future'),
    });
    expect(source.verify(signed(BATCH, { receivedAt: NOW + 299_000 }), [SENDGRID.base64]).ok).toBe(true);
    expect(sendgridSource.create({ tolerance_seconds: 3600 }).verify(signed(BATCH, { receivedAt: NOW + 1800_000 }), [SENDGRID.base64]).ok).toBe(true);
  });

  it('answers missing: true without the signature header, and a plain failure without the timestamp', () => {
    expect(source.verify(request(BATCH, {}), [SENDGRID.base64])).toEqual({
      ok: false,
      reason: 'missing x-twilio-email-event-webhook-signature header',
      missing: true,
    });
    const noTimestamp = source.verify(request(BATCH, { 'x-twilio-email-event-webhook-signature': signWith(SENDGRID, nowSeconds, BATCH) }), [SENDGRID.base64]);
    expect(noTimestamp).toEqual({ ok: false, reason: expect.stringContaining('missing x-twilio-email-event-webhook-timestamp') });
  });

  it.each([
    ['malformed base64', () => '***not base64***'],
    ['a truncated signature', () => signWith(SENDGRID, nowSeconds, BATCH).slice(0, 40)],
    ['hex instead of base64', () => Buffer.from(signWith(SENDGRID, nowSeconds, BATCH), 'base64').toString('hex')],
    [
      'a raw r||s signature instead of DER',
      () => signEcdsa('sha256', Buffer.from(nowSeconds + BATCH), { key: SENDGRID.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64'),
    ],
    ['non-ASCII characters', () => 'ö'.repeat(96)],
    ['a 64 KiB value', () => 'A'.repeat(64 * 1024)],
    ['an array of junk', () => ['AAAA', 'BBBB']],
    ['a well-formed base64 of zeros', () => Buffer.alloc(72).toString('base64')],
  ])('refuses %s without throwing', (_what, value) => {
    const verdict = source.verify(request(BATCH, { 'x-twilio-email-event-webhook-signature': value(), 'x-twilio-email-event-webhook-timestamp': nowSeconds }), [
      SENDGRID.base64,
    ]);
    expect(verdict.ok).toBe(false);
    expect(verdict).not.toHaveProperty('missing');
  });

  it('refuses garbage timestamps (signed ones too) without throwing', () => {
    for (const timestamp of ['é', 'now', String(NOW), '1'.repeat(64 * 1024)]) {
      expect(source.verify(signed(BATCH, { timestamp }), [SENDGRID.base64]).ok).toBe(false);
    }
  });
});

describe('sendgrid source: payload, event type, delivery id', () => {
  const parse = (body: string) => source.parse!(request(body, {}));

  it('returns the batch as {events: [...]}, and nothing for a body that is not a JSON array', () => {
    expect(parse(BATCH)).toEqual({ events: JSON.parse(BATCH) });
    expect(parse('[]')).toEqual({ events: [] });
    expect(parse('{"event":"delivered"}')).toBeUndefined();
    expect(parse('[{"event":')).toBeUndefined();
    expect(parse('')).toBeUndefined();
  });

  it("names a batch after its events' kind, or mixed when they differ", () => {
    const events = JSON.parse(BATCH) as Array<Record<string, unknown>>;
    expect(source.eventType!(signed(), { events })).toBe('mixed');
    expect(source.eventType!(signed(), { events: [events[1], { ...events[1], sg_event_id: 'x' }] })).toBe('delivered');
    expect(source.eventType!(signed(), { events: [{ event: 'bounce', type: 'blocked' }] })).toBe('bounce');
    expect(source.eventType!(signed(), { events: [] })).toBeUndefined();
    expect(source.eventType!(signed(), { events: ['junk', 3, null] })).toBeUndefined();
  });

  it("uses a lone event's sg_event_id, and a hash of a batch's sorted ids", () => {
    const events = JSON.parse(BATCH) as Array<Record<string, unknown>>;
    expect(source.deliveryId!(signed(), { events: [events[0]] })).toBe('rbtnWrG1DVDGGGFHFyun0A==');
    const id = source.deliveryId!(signed(), { events });
    expect(id).toMatch(/^batch-[0-9a-f]{32}$/);
    expect(source.deliveryId!(signed(), { events: [...events].reverse() })).toBe(id);
    expect(source.deliveryId!(signed(), { events: [events[0], { ...events[1], sg_event_id: 'another' }] })).not.toBe(id);
  });

  it('hashes the body when the events carry no sg_event_id', () => {
    const a = source.deliveryId!(request('[{"event":"open"},{"event":"click"}]', {}), { events: [{ event: 'open' }, { event: 'click' }] });
    const b = source.deliveryId!(request('[{"event":"open"},{"event":"open"}]', {}), { events: [{ event: 'open' }, { event: 'open' }] });
    expect(a).toMatch(/^batch-[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
  });
});

describe('sendgrid plugin', () => {
  it('contributes the source sendgrid on X-Twilio-Email-Event-Webhook-Signature', () => {
    expect(plugin.contributes.map((c) => `${c.kind}:${c.id}`)).toEqual(['source:sendgrid']);
    expect(source.headers[0]).toBe('x-twilio-email-event-webhook-signature');
  });

  it('validates its options as the gateway does, with a 300 s default window', () => {
    const registry = new PluginRegistry([{ plugin, source: '@hookwise/plugin-source-sendgrid', options: {} }]);
    expect(registry.validateOptions('source', 'sendgrid', {}, 'source_options')).toEqual({ options: { tolerance_seconds: 300 }, problems: [] });
    expect(registry.validateOptions('source', 'sendgrid', { tolerance_seconds: -1 }, 'source_options').problems).toHaveLength(1);
  });
});
