// Unit tests of the Twitch EventSub source, signed with the documented algorithm (Twitch publishes no signing
// package) on the example messages of https://dev.twitch.tv/docs/eventsub/handling-webhook-events/.
import { createHmac } from 'node:crypto';
import type { Source, SourceRequest } from '@hookwise/core';
import { PluginRegistry } from '@hookwise/gateway';
import { createTestPluginContext } from '@hookwise/testing';
import plugin, { twitchSource, rfc3339Seconds } from '../../src';

const SECRET = 'twitch-eventsub-secret-0123456789';
const OLD_SECRET = 'twitch-eventsub-secret-old-987654';

// The three example bodies of the page above: a channel.follow notification, its challenge and its revocation.
const SUBSCRIPTION = (status: string) =>
  `{"id":"f1c2a387-161a-49f9-a165-0f21d7a4e1c4","status":"${status}","type":"channel.follow","version":"2","cost":1,"condition":{"broadcaster_user_id":"1337","moderator_user_id":"1337"},"transport":{"method":"webhook","callback":"https://example.com/webhooks/callback"},"created_at":"2019-11-16T10:11:12.634234626Z"}`;
const NOTIFICATION = `{"subscription":${SUBSCRIPTION('enabled')},"event":{"user_id":"1234","user_login":"cool_user","user_name":"Cool_User","broadcaster_user_id":"1337","broadcaster_user_login":"cooler_user","broadcaster_user_name":"Cooler_User","followed_at":"2020-07-15T18:16:11.17106713Z"}}`;
const CHALLENGE = `{"challenge":"pogchamp-kappa-360noscope-vohiyo","subscription":${SUBSCRIPTION('webhook_callback_verification_pending')}}`;
const REVOCATION = `{"subscription":${SUBSCRIPTION('authorization_revoked')}}`;

const MESSAGE_ID = 'e76c6bd4-55c9-4987-8304-da1588d8988b';
const TIMESTAMP = '2019-11-16T10:11:12.634234626Z';
const SENT_AT = Date.parse('2019-11-16T10:11:12.634Z');

const sign = (secret: string, id: string, timestamp: string, body: string) =>
  `sha256=${createHmac('sha256', secret)
    .update(id + timestamp + body)
    .digest('hex')}`;
const request = (body: string, headers: SourceRequest['headers'], receivedAt = SENT_AT + 2_000): SourceRequest => ({
  url: 'https://hooks.example.com/webhooks/twitch',
  rawBody: Buffer.from(body),
  headers,
  receivedAt,
});
const signed = (body = NOTIFICATION, { secret = SECRET, id = MESSAGE_ID, timestamp = TIMESTAMP, type = 'notification', receivedAt = SENT_AT + 2_000 } = {}) =>
  request(
    body,
    {
      'twitch-eventsub-message-id': id,
      'twitch-eventsub-message-retry': '0',
      'twitch-eventsub-message-type': type,
      'twitch-eventsub-message-signature': sign(secret, id, timestamp, body),
      'twitch-eventsub-message-timestamp': timestamp,
      'twitch-eventsub-subscription-type': 'channel.follow',
      'twitch-eventsub-subscription-version': '2',
    },
    receivedAt,
  );
const source = twitchSource.create();

describe('rfc3339Seconds', () => {
  it('reads the nanosecond timestamps Twitch sends, and offsets', () => {
    expect(rfc3339Seconds(TIMESTAMP)).toBeCloseTo(SENT_AT / 1000 + 0.000234626, 6);
    expect(rfc3339Seconds('2019-11-16T12:11:12+02:00')).toBe(Date.parse('2019-11-16T10:11:12Z') / 1000);
    expect(rfc3339Seconds('2019-11-16t10:11:12z')).toBe(Date.parse('2019-11-16T10:11:12Z') / 1000);
  });

  it.each(['1573899072', '2019-11-16', '2019-11-16T10:11:12', '2019-13-16T10:11:12Z', 'Sat, 16 Nov 2019 10:11:12 GMT', '', 'é'])('refuses %j', (value) => {
    expect(rfc3339Seconds(value)).toBeUndefined();
  });
});

describe('twitch source: verify', () => {
  it('accepts the documented signature over message id + timestamp + body', () => {
    expect(source.verify(signed(), [SECRET])).toEqual({ ok: true, secretIndex: 0 });
  });

  it('reports which secret of a rotation matched', () => {
    expect(source.verify(signed(NOTIFICATION, { secret: OLD_SECRET }), [SECRET, OLD_SECRET])).toEqual({ ok: true, secretIndex: 1 });
  });

  it('refuses another secret, a changed body, message id or timestamp', () => {
    expect(source.verify(signed(NOTIFICATION, { secret: 'another-secret-0000000000' }), [SECRET, OLD_SECRET]).ok).toBe(false);
    const good = signed();
    expect(source.verify({ ...good, rawBody: Buffer.from(NOTIFICATION.replace('cool_user', 'evil_user')) }, [SECRET]).ok).toBe(false);
    expect(source.verify({ ...good, headers: { ...good.headers, 'twitch-eventsub-message-id': 'another-id' } }, [SECRET]).ok).toBe(false);
    expect(source.verify({ ...good, headers: { ...good.headers, 'twitch-eventsub-message-timestamp': '2019-11-16T10:11:13.634234626Z' } }, [SECRET]).ok).toBe(
      false,
    );
  });

  it('refuses a message older than 10 minutes, and one from the future', () => {
    const stale = source.verify(signed(NOTIFICATION, { receivedAt: SENT_AT + 601_000 }), [SECRET]);
    expect(stale).toEqual({ ok: false, reason: expect.stringContaining('601 s old (tolerance 600 s)') });
    expect(source.verify(signed(NOTIFICATION, { receivedAt: SENT_AT - 601_000 }), [SECRET])).toEqual({
      ok: false,
      reason: expect.stringContaining('in the future'),
    });
    expect(source.verify(signed(NOTIFICATION, { receivedAt: SENT_AT + 599_000 }), [SECRET]).ok).toBe(true);
    expect(twitchSource.create({ tolerance_seconds: 60 }).verify(signed(NOTIFICATION, { receivedAt: SENT_AT + 61_000 }), [SECRET]).ok).toBe(false);
  });

  it('refuses a timestamp in Unix seconds (Twitch sends RFC3339), even when signed', () => {
    const verdict = source.verify(signed(NOTIFICATION, { timestamp: String(SENT_AT / 1000) }), [SECRET]);
    expect(verdict).toEqual({ ok: false, reason: expect.stringContaining('not an RFC3339 time') });
  });

  it('answers missing: true without a signature header; the other signed headers are plain failures', () => {
    const { 'twitch-eventsub-message-signature': _sig, ...unsigned } = signed().headers;
    expect(source.verify(request(NOTIFICATION, unsigned), [SECRET])).toEqual({
      ok: false,
      reason: 'missing twitch-eventsub-message-signature header',
      missing: true,
    });
    const { 'twitch-eventsub-message-id': _id, ...noId } = signed().headers;
    expect(source.verify(request(NOTIFICATION, noId), [SECRET])).toEqual({ ok: false, reason: expect.stringContaining('missing twitch-eventsub-message-id') });
    const { 'twitch-eventsub-message-timestamp': _ts, ...noTimestamp } = signed().headers;
    expect(source.verify(request(NOTIFICATION, noTimestamp), [SECRET])).toEqual({
      ok: false,
      reason: expect.stringContaining('missing twitch-eventsub-message-timestamp'),
    });
  });

  it.each([
    ['an empty value', () => ''],
    ['no sha256= prefix', () => sign(SECRET, MESSAGE_ID, TIMESTAMP, NOTIFICATION).slice(7)],
    ['a sha1= prefix', () => sign(SECRET, MESSAGE_ID, TIMESTAMP, NOTIFICATION).replace('sha256=', 'sha1=')],
    ['malformed hex', () => `sha256=${'xy'.repeat(32)}`],
    ['non-ASCII characters', () => `sha256=${'ü'.repeat(64)}`],
    ['a 64 KiB value', () => `sha256=${'0'.repeat(64 * 1024)}`],
    ['an array', () => ['sha256=00', 'sha256=11']],
  ])('refuses %s without throwing', (_what, value) => {
    const verdict = source.verify({ ...signed(), headers: { ...signed().headers, 'twitch-eventsub-message-signature': value() } }, [SECRET]);
    expect(verdict.ok).toBe(false);
  });

  it('refuses garbage timestamps without throwing', () => {
    for (const timestamp of ['é', 'x'.repeat(64 * 1024), '9999-99-99T99:99:99Z']) {
      expect(source.verify(signed(NOTIFICATION, { timestamp }), [SECRET]).ok).toBe(false);
    }
  });
});

describe('twitch source: event type and delivery id', () => {
  it('takes Twitch-Eventsub-Subscription-Type, else the body, and the message id', () => {
    const payload = JSON.parse(NOTIFICATION) as Record<string, unknown>;
    expect(source.eventType!(signed(), payload)).toBe('channel.follow');
    const { 'twitch-eventsub-subscription-type': _t, ...withoutType } = signed().headers;
    expect(source.eventType!(request(NOTIFICATION, withoutType), payload)).toBe('channel.follow');
    expect(source.eventType!(request('{}', {}), {})).toBeUndefined();
    expect(source.deliveryId!(signed(), payload)).toBe(MESSAGE_ID);
  });
});

describe('twitch source: handshakes', () => {
  function created(): { source: Source; logs: string[] } {
    const test = createTestPluginContext();
    return { source: plugin.contributes[0].create({ tolerance_seconds: 600 }, test.ctx) as Source, logs: test.logs };
  }

  it('answers webhook_callback_verification with the raw challenge as text/plain', () => {
    const req = signed(CHALLENGE, { type: 'webhook_callback_verification' });
    expect(source.verify(req, [SECRET]).ok).toBe(true);
    expect(source.handshake!(req, JSON.parse(CHALLENGE), SECRET)).toEqual({ status: 200, body: 'pogchamp-kappa-360noscope-vohiyo', contentType: 'text/plain' });
    expect(source.handshake!(signed('{}', { type: 'webhook_callback_verification' }), {}, SECRET)).toMatchObject({ status: 400 });
  });

  it('logs a revocation with the subscription type and status, and acknowledges it with a 2xx', () => {
    const { source: withLogger, logs } = created();
    const req = signed(REVOCATION, { type: 'revocation' });
    const answer = withLogger.handshake!(req, JSON.parse(REVOCATION), SECRET);
    expect(answer?.status).toBeGreaterThanOrEqual(200);
    expect(answer?.status).toBeLessThan(300);
    const line = JSON.parse(logs.find((l) => l.includes('revoked'))!) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 'warn',
      subscription_type: 'channel.follow',
      subscription_status: 'authorization_revoked',
      subscription_id: 'f1c2a387-161a-49f9-a165-0f21d7a4e1c4',
    });
    expect(String(line.message)).toContain('channel.follow');
    expect(String(line.message)).toContain('authorization_revoked');
    expect(logs.join('\n')).not.toContain(SECRET);
  });

  it('lets notifications through to the queue', () => {
    expect(source.handshake!(signed(), JSON.parse(NOTIFICATION), SECRET)).toBeUndefined();
  });
});

describe('twitch plugin', () => {
  it('contributes the source twitch on Twitch-Eventsub-Message-Signature', () => {
    expect(plugin.contributes.map((c) => `${c.kind}:${c.id}`)).toEqual(['source:twitch']);
    expect(source.headers[0]).toBe('twitch-eventsub-message-signature');
  });

  it('validates its options as the gateway does, with the documented 600 s window as default', () => {
    const registry = new PluginRegistry([{ plugin, source: '@hookwise/plugin-source-twitch', options: {} }]);
    expect(registry.validateOptions('source', 'twitch', {}, 'source_options')).toEqual({ options: { tolerance_seconds: 600 }, problems: [] });
    expect(registry.validateOptions('source', 'twitch', { tolerance_seconds: 'ten' }, 'source_options').problems).toHaveLength(1);
  });
});
