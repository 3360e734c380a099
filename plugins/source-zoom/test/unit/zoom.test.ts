// Unit tests of the Zoom source, signed with the documented algorithm (Zoom publishes no signing package):
// https://developers.zoom.us/docs/api/webhooks/#verify-webhook-events and #validate-your-webhook-endpoint.
import { createHmac } from 'node:crypto';
import type { SourceRequest } from '@hookwise/core';
import { PluginRegistry } from '@hookwise/gateway';
import plugin, { zoomSource, zoomDeliveryId } from '../../src';

const SECRET = 'zoomSecretToken-Abc123Def456Ghi789';
const OLD_SECRET = 'zoomSecretToken-Old000Old000Old000';

// The meeting.started example of Zoom's webhook sample (github.com/zoom/webhook-sample, README), ids filled in.
const MEETING_STARTED =
  '{"event":"meeting.started","payload":{"account_id":"AAAAAABBBB","object":{"duration":0,"start_time":"2021-11-02T20:43:19Z","timezone":"America/Denver","topic":"Weekly sync","id":"85746065432","type":4,"uuid":"4444AAAiAAAAAiAiAiiAii==","host_id":"x1yCzABCDEfg23HiJKl4mN"}},"event_ts":1635885799302}';
// The endpoint.url_validation example of https://developers.zoom.us/docs/api/webhooks/#validate-your-webhook-endpoint.
const URL_VALIDATION = '{"payload":{"plainToken":"qgg8vlvZRS6UYooatFL8Aw"},"event_ts":1654503849680,"event":"endpoint.url_validation"}';

const NOW = Date.UTC(2024, 0, 15, 12, 0, 0);
const nowSeconds = Math.floor(NOW / 1000);
const sign = (secret: string, timestamp: string, body: string) => `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
const request = (body: string, headers: SourceRequest['headers']): SourceRequest => ({
  url: 'https://hooks.example.com/webhooks/zoom',
  rawBody: Buffer.from(body),
  headers,
  receivedAt: NOW,
});
const signed = (body = MEETING_STARTED, { secret = SECRET, timestamp = String(nowSeconds) } = {}) =>
  request(body, { 'x-zm-signature': sign(secret, timestamp, body), 'x-zm-request-timestamp': timestamp, 'x-zm-trackingid': 'v=2.0;clid=aw1;rid=WEB_123' });
const source = zoomSource.create();

describe('zoom source: verify', () => {
  it('accepts the documented signature over v0:<timestamp>:<body>', () => {
    expect(source.verify(signed(), [SECRET])).toEqual({ ok: true, secretIndex: 0 });
  });

  it('reports which secret token of a rotation matched', () => {
    expect(source.verify(signed(MEETING_STARTED, { secret: OLD_SECRET }), [SECRET, OLD_SECRET])).toEqual({ ok: true, secretIndex: 1 });
  });

  it('refuses another secret token, a changed body and a changed timestamp', () => {
    expect(source.verify(signed(MEETING_STARTED, { secret: 'another-secret-token-000000' }), [SECRET, OLD_SECRET]).ok).toBe(false);
    const good = signed();
    expect(source.verify({ ...good, rawBody: Buffer.from(MEETING_STARTED.replace('Weekly', 'Weakly')) }, [SECRET]).ok).toBe(false);
    expect(source.verify({ ...good, headers: { ...good.headers, 'x-zm-request-timestamp': String(nowSeconds - 1) } }, [SECRET]).ok).toBe(false);
  });

  it('accepts the hex digest in either case', () => {
    const good = signed();
    const upper = `v0=${(good.headers['x-zm-signature'] as string).slice(3).toUpperCase()}`;
    expect(source.verify({ ...good, headers: { ...good.headers, 'x-zm-signature': upper } }, [SECRET]).ok).toBe(true);
  });

  it('refuses a request older than the window (300 s by default), and one from the future', () => {
    const stale = source.verify(signed(MEETING_STARTED, { timestamp: String(nowSeconds - 301) }), [SECRET]);
    expect(stale).toEqual({ ok: false, reason: expect.stringContaining('301 s old (tolerance 300 s)') });
    const future = source.verify(signed(MEETING_STARTED, { timestamp: String(nowSeconds + 301) }), [SECRET]);
    expect(future).toEqual({ ok: false, reason: expect.stringContaining('in the future') });
    expect(source.verify(signed(MEETING_STARTED, { timestamp: String(nowSeconds - 299) }), [SECRET]).ok).toBe(true);
  });

  it('takes tolerance_seconds from the options', () => {
    const wide = zoomSource.create({ tolerance_seconds: 900 });
    expect(wide.verify(signed(MEETING_STARTED, { timestamp: String(nowSeconds - 600) }), [SECRET])).toEqual({ ok: true, secretIndex: 0 });
  });

  it('refuses a timestamp in milliseconds or not a number, even when signed', () => {
    // Read as seconds, a millisecond value lies tens of thousands of years ahead.
    expect(source.verify(signed(MEETING_STARTED, { timestamp: String(NOW) }), [SECRET])).toEqual({
      ok: false,
      reason: expect.stringContaining('in the future'),
    });
    expect(source.verify(signed(MEETING_STARTED, { timestamp: 'yesterday' }), [SECRET]).ok).toBe(false);
  });

  it('answers missing: true without x-zm-signature, and a plain failure without the timestamp', () => {
    expect(source.verify(request(MEETING_STARTED, {}), [SECRET])).toEqual({ ok: false, reason: 'missing x-zm-signature header', missing: true });
    expect(source.verify(request(MEETING_STARTED, { 'x-zm-signature': ['  '] }), [SECRET])).toMatchObject({ missing: true });
    const noTimestamp = source.verify(request(MEETING_STARTED, { 'x-zm-signature': sign(SECRET, String(nowSeconds), MEETING_STARTED) }), [SECRET]);
    expect(noTimestamp).toEqual({ ok: false, reason: expect.stringContaining('missing x-zm-request-timestamp') });
  });

  it.each([
    ['no v0= prefix', () => sign(SECRET, String(nowSeconds), MEETING_STARTED).slice(3)],
    ['another version', () => sign(SECRET, String(nowSeconds), MEETING_STARTED).replace('v0=', 'v1=')],
    ['malformed hex', () => `v0=${'zz'.repeat(32)}`],
    ['a short digest', () => 'v0=abcd'],
    ['non-ASCII characters', () => `v0=${'é'.repeat(64)}`],
    ['a 64 KiB value', () => `v0=${'a'.repeat(64 * 1024)}`],
    ['an array of junk', () => ['v0=junk', 'v0=more']],
  ])('refuses %s without throwing', (_what, value) => {
    const verdict = source.verify(request(MEETING_STARTED, { 'x-zm-signature': value(), 'x-zm-request-timestamp': String(nowSeconds) }), [SECRET]);
    expect(verdict.ok).toBe(false);
    expect(verdict).not.toHaveProperty('missing');
  });

  it('refuses a garbage timestamp header without throwing', () => {
    for (const timestamp of ['é', '1'.repeat(64 * 1024), '-5', '1e9']) {
      const verdict = source.verify(signed(MEETING_STARTED, { timestamp }), [SECRET]);
      expect(verdict.ok).toBe(false);
    }
  });
});

describe('zoom source: event type, delivery id', () => {
  const payloadOf = (body: string) => JSON.parse(body) as Record<string, unknown>;

  it('takes the event type from the body', () => {
    expect(source.eventType!(signed(), payloadOf(MEETING_STARTED))).toBe('meeting.started');
    expect(source.eventType!(signed(), {})).toBeUndefined();
  });

  it('is <event>:<event_ts>:<body hash>, the same for the same body and different for another', () => {
    const id = zoomDeliveryId(signed(), payloadOf(MEETING_STARTED));
    expect(id).toMatch(/^meeting\.started:1635885799302:[0-9a-f]{16}$/);
    // A retry posts the same body under a new timestamp and signature: same id.
    expect(source.deliveryId!(signed(MEETING_STARTED, { timestamp: String(nowSeconds + 5) }), payloadOf(MEETING_STARTED))).toBe(id);
    // Another participant in the same millisecond: another id.
    const other = MEETING_STARTED.replace('x1yCzABCDEfg23HiJKl4mN', 'z9yCzABCDEfg23HiJKl4mN');
    expect(source.deliveryId!(signed(other), payloadOf(other))).not.toBe(id);
  });

  it('still has an id without event or event_ts', () => {
    expect(zoomDeliveryId(signed('{}'), {})).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('zoom source: endpoint.url_validation', () => {
  it('answers 200 {plainToken, encryptedToken} with the secret that matched, as documented', () => {
    const req = signed(URL_VALIDATION, { secret: OLD_SECRET });
    const verdict = source.verify(req, [SECRET, OLD_SECRET]);
    expect(verdict).toEqual({ ok: true, secretIndex: 1 });
    const answer = source.handshake!(req, JSON.parse(URL_VALIDATION), OLD_SECRET);
    expect(answer).toEqual({
      status: 200,
      body: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw', encryptedToken: createHmac('sha256', OLD_SECRET).update('qgg8vlvZRS6UYooatFL8Aw').digest('hex') },
    });
  });

  it('answers 400 to a validation without plainToken, and nothing to other events', () => {
    expect(source.handshake!(signed(), { event: 'endpoint.url_validation', payload: {} }, SECRET)).toMatchObject({ status: 400 });
    expect(source.handshake!(signed(), { event: 'endpoint.url_validation' }, SECRET)).toMatchObject({ status: 400 });
    expect(source.handshake!(signed(), JSON.parse(MEETING_STARTED), SECRET)).toBeUndefined();
  });
});

describe('zoom plugin', () => {
  it('contributes the source zoom on x-zm-signature', () => {
    expect(plugin.contributes.map((c) => `${c.kind}:${c.id}`)).toEqual(['source:zoom']);
    expect(source.headers[0]).toBe('x-zm-signature');
  });

  it('validates its options as the gateway does, with a 300 s default window', () => {
    const registry = new PluginRegistry([{ plugin, source: '@hookwise/plugin-source-zoom', options: {} }]);
    expect(registry.validateOptions('source', 'zoom', {}, 'source_options')).toEqual({ options: { tolerance_seconds: 300 }, problems: [] });
    expect(registry.validateOptions('source', 'zoom', { tolerance_seconds: 0 }, 'source_options').problems).toHaveLength(1);
    expect(registry.validateOptions('source', 'zoom', { other: true }, 'source_options').problems).toHaveLength(1);
  });
});
