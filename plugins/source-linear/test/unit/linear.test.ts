// Unit tests of the Linear source: the documented payload, signed as documented, with Linear's SDK (LinearWebhookClient.verify) as the oracle.
import { randomBytes } from 'node:crypto';
import type { HeaderMap, Source, SourceRequest, SourceVerdict } from '@hookwise/core';
import { createTestPluginContext } from '@hookwise/testing';
import plugin, { linearSource } from '../../src';
import { commentCreate, DOCUMENTED_HEADERS, linearSdkVerify, linearSignature } from '../fixtures';

const secrets = [`lin_wh_${randomBytes(24).toString('hex')}`, `lin_wh_${randomBytes(24).toString('hex')}`];
const nowMs = Date.now();

function request(headers: HeaderMap, body: string | Buffer, receivedAt = nowMs): SourceRequest {
  return {
    headers: { 'content-type': 'application/json; charset=utf-8', ...DOCUMENTED_HEADERS, ...headers },
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body),
    url: 'https://hooks.example.com/webhooks/linear',
    receivedAt,
  };
}
const signed = (body: string, secret = secrets[0]) => request({ 'linear-signature': linearSignature(secret, body) }, body);
const failed = (verdict: SourceVerdict) => verdict as Extract<SourceVerdict, { ok: false }>;

const source = linearSource.create();

describe('linear source', () => {
  it('is contributed as source linear with tolerance_seconds (default 60) and event_name (default type.action)', async () => {
    const [contribution] = plugin.contributes;
    expect(contribution).toMatchObject({ kind: 'source', id: 'linear' });
    expect(linearSource.optionsSchema.properties.tolerance_seconds).toMatchObject({ type: 'integer', default: 60 });
    expect(linearSource.optionsSchema.properties.event_name).toMatchObject({ enum: ['type.action', 'type'], default: 'type.action' });
    const created = (await contribution.create({ tolerance_seconds: 60, event_name: 'type.action' }, createTestPluginContext().ctx)) as Source;
    expect(created.headers[0]).toBe('linear-signature');
  });

  it("agrees with Linear's SDK on what it accepts and refuses (header name, timestamp field, signature, window)", () => {
    const fresh = commentCreate(nowMs);
    const stale = commentCreate(nowMs - 120_000);
    const noTimestamp = JSON.stringify({ ...JSON.parse(fresh), webhookTimestamp: undefined });
    const cases = [
      { secret: secrets[0], body: fresh, signature: linearSignature(secrets[0], fresh), ours: true },
      { secret: secrets[0], body: fresh, signature: linearSignature('another-secret', fresh), ours: false },
      { secret: secrets[0], body: stale, signature: linearSignature(secrets[0], stale), ours: false },
      { secret: secrets[0], body: noTimestamp, signature: linearSignature(secrets[0], noTimestamp), ours: false },
    ];
    const sdk = linearSdkVerify(cases.map(({ secret, body, signature }) => ({ secret, body, signature })));
    expect(sdk.signatureHeader).toBe('linear-signature');
    expect(sdk.timestampField).toBe('webhookTimestamp');
    expect(sdk.results[0]).toBe(true);
    cases.forEach((c, i) => {
      expect(sdk.results[i] === true).toBe(c.ours);
      expect(source.verify(request({ 'linear-signature': c.signature }, c.body), [c.secret]).ok).toBe(c.ours);
    });
  });

  it('accepts the documented Comment create and names the matching secret of a rotation', () => {
    expect(source.verify(signed(commentCreate()), secrets)).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(signed(commentCreate(), secrets[1]), secrets)).toEqual({ ok: true, secretIndex: 1 });
  });

  it('refuses another secret, a tampered body and a moved webhookTimestamp (it is inside the signed body)', () => {
    const body = commentCreate(nowMs);
    expect(body).toContain(String(nowMs));
    expect(failed(source.verify(signed(body, 'not-this-webhook'), secrets)).reason).toBe('digest does not match');
    const req = signed(body);
    expect(source.verify({ ...req, rawBody: Buffer.from(body.replace('Indeed', 'Sadly')) }, secrets).ok).toBe(false);
    expect(source.verify({ ...req, rawBody: Buffer.from(body.replace(String(nowMs), String(nowMs + 1))) }, secrets).ok).toBe(false);
  });

  it('refuses a webhookTimestamp more than 60 s old or ahead, with the replay-window reason; tolerance_seconds widens it', () => {
    const old = source.verify(signed(commentCreate(nowMs - 61_000)), secrets);
    expect(failed(old).reason).toMatch(/the timestamp is 61 s old \(tolerance 60 s\)/);
    const ahead = source.verify(signed(commentCreate(nowMs + 61_000)), secrets);
    expect(failed(ahead).reason).toMatch(/61 s in the future \(tolerance 60 s\)/);
    expect(source.verify(signed(commentCreate(nowMs - 59_000)), secrets).ok).toBe(true);
    expect(linearSource.create({ tolerance_seconds: 300 }).verify(signed(commentCreate(nowMs - 120_000)), secrets).ok).toBe(true);
  });

  it('refuses a signed body without a usable webhookTimestamp, naming why', () => {
    const without = JSON.stringify({ action: 'create', type: 'Issue', data: {} });
    expect(failed(source.verify(signed(without), secrets)).reason).toBe('the signed body has no webhookTimestamp');
    const asText = JSON.stringify({ action: 'create', type: 'Issue', webhookTimestamp: String(nowMs) });
    expect(failed(source.verify(signed(asText), secrets)).reason).toBe('webhookTimestamp is not a number of milliseconds');
    expect(failed(source.verify(signed('not json'), secrets)).reason).toMatch(/not JSON/);
    expect(failed(source.verify(signed('null'), secrets)).reason).toBe('the signed body has no webhookTimestamp');
  });

  it('says missing without Linear-Signature', () => {
    expect(source.verify(request({}, commentCreate()), secrets)).toEqual({ ok: false, reason: 'missing linear-signature header', missing: true });
  });

  it('never matches with an empty secret (an unset variable), whoever signs with an empty key', () => {
    const body = commentCreate();
    expect(source.verify(request({ 'linear-signature': linearSignature('', body) }, body), ['', secrets[0]]).ok).toBe(false);
  });

  it.each<[string, string | string[]]>([
    ['an empty value', ''],
    ['a sha256= prefix', `sha256=${'a'.repeat(64)}`],
    ['a short digest', 'abcdef'],
    ['non-hex digits', 'x'.repeat(64)],
    ['non-ASCII', 'ä'.repeat(64)],
    ['a 64 KiB value', 'a'.repeat(64 * 1024)],
    ['an array whose first value is wrong', ['0'.repeat(64), 'f'.repeat(64)]],
  ])('refuses %s cleanly, without throwing', (_what, value) => {
    const verdict = source.verify(request({ 'linear-signature': value }, commentCreate()), secrets);
    expect(verdict.ok).toBe(false);
    expect(typeof (verdict as { reason: string }).reason).toBe('string');
  });

  it('names events <type>.<action> (or the type alone with event_name: type) and uses Linear-Delivery as the delivery id', () => {
    const body = commentCreate();
    const req = signed(body);
    const payload = JSON.parse(body) as Record<string, unknown>;
    expect(source.eventType!(req, payload)).toBe('Comment.create');
    expect(source.deliveryId!(req, payload)).toBe('234d1a4e-b617-4388-90fe-adc3633d6b72');
    expect(linearSource.create({ event_name: 'type' }).eventType!(req, payload)).toBe('Comment');
    // Other event streams: Issue SLA (action set/highRisk/breached) and OAuthApp revoked, per the same docs page.
    expect(source.eventType!(req, { type: 'IssueSLA', action: 'breached', issueData: {} })).toBe('IssueSLA.breached');
    expect(source.eventType!(req, { type: 'OAuthApp', action: 'revoked', oauthClientId: 'x' })).toBe('OAuthApp.revoked');
    // Without `type` in the body, the Linear-Event header names the entity.
    expect(source.eventType!(req, { action: 'update' })).toBe('Comment.update');
    expect(source.eventType!(request({ 'linear-event': undefined }, '{}'), {})).toBeUndefined();
    expect(source.deliveryId!(request({ 'linear-delivery': undefined }, '{}'), payload)).toBeUndefined();
  });

  it('has no handshake and no special parse', () => {
    expect(source.handshake).toBeUndefined();
    expect(source.parse).toBeUndefined();
  });
});
