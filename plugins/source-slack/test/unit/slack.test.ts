// Unit tests of the Slack source: Slack's documented signing example, and requests that Bolt's verifySlackRequest accepts.
import { createHmac, randomBytes } from 'node:crypto';
import { verifySlackRequest } from '@slack/bolt';
import type { HeaderMap, Source, SourceRequest, SourceVerdict } from '@hookwise/core';
import { createTestPluginContext } from '@hookwise/testing';
import plugin, { slackSource, parseSlackBody } from '../../src';
import { APP_MENTION, BLOCK_ACTIONS, BLOCK_ACTIONS_FORM, DOCUMENTED_SIGNING_EXAMPLE, URL_VERIFICATION } from '../fixtures';

const secrets = [randomBytes(16).toString('hex'), randomBytes(16).toString('hex')];
const now = Math.floor(Date.now() / 1000);
const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** Slack's documented scheme; every signature made here is first checked by Bolt's own verifier (the oracle). */
function sign(secret: string, body: string, timestamp = now): string {
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  verifySlackRequest({
    signingSecret: secret,
    body,
    headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp },
    nowMilliseconds: timestamp * 1000,
  });
  return signature;
}

function request(body: string, headers: HeaderMap, contentType = JSON_TYPE, receivedAt = now * 1000): SourceRequest {
  return { headers: { 'content-type': contentType, ...headers }, rawBody: Buffer.from(body), url: 'https://hooks.example.com/webhooks/slack', receivedAt };
}

function signed(body: string, secret = secrets[0], contentType = JSON_TYPE, timestamp = now): SourceRequest {
  return request(body, { 'x-slack-signature': sign(secret, body, timestamp), 'x-slack-request-timestamp': String(timestamp) }, contentType);
}

const source = slackSource.create();
const failed = (verdict: SourceVerdict) => verdict as Extract<SourceVerdict, { ok: false }>;

describe('slack source', () => {
  it('is contributed as source slack with tolerance_seconds (default 300)', async () => {
    const [contribution] = plugin.contributes;
    expect(contribution).toMatchObject({ kind: 'source', id: 'slack' });
    expect(slackSource.optionsSchema.properties.tolerance_seconds).toMatchObject({ type: 'integer', default: 300 });
    const created = (await contribution.create({ tolerance_seconds: 300 }, createTestPluginContext().ctx)) as Source;
    expect(created.headers).toEqual(['x-slack-signature', 'x-slack-request-timestamp']);
  });

  it("accepts Slack's documented signing example (secret 8f742231..., timestamp 1531420618)", () => {
    const { secret, timestamp, body, signature } = DOCUMENTED_SIGNING_EXAMPLE;
    const req = request(body, { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp }, FORM_TYPE, Number(timestamp) * 1000 + 5_000);
    expect(source.verify(req, [secret])).toEqual({ ok: true, secretIndex: 0 });
    // And Bolt agrees on the same bytes.
    expect(() =>
      verifySlackRequest({
        signingSecret: secret,
        body,
        headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': Number(timestamp) },
        nowMilliseconds: Number(timestamp) * 1000,
      }),
    ).not.toThrow();
  });

  it('accepts a signed Events API callback and names the secret that matched', () => {
    expect(source.verify(signed(APP_MENTION), secrets)).toEqual({ ok: true, secretIndex: 0 });
    expect(source.verify(signed(APP_MENTION, secrets[1]), secrets)).toEqual({ ok: true, secretIndex: 1 });
  });

  it('refuses another secret, a tampered body and a changed timestamp', () => {
    expect(failed(source.verify(signed(APP_MENTION, 'not-the-signing-secret'), secrets)).reason).toMatch(/^v0 signature does not match/);
    const req = signed(APP_MENTION);
    expect(source.verify({ ...req, rawBody: Buffer.from(APP_MENTION.replace('pearl', 'Pearl')) }, secrets).ok).toBe(false);
    expect(source.verify({ ...req, headers: { ...req.headers, 'x-slack-request-timestamp': String(now - 1) } }, secrets).ok).toBe(false);
  });

  it('refuses a request older or newer than 5 minutes with the replay-window reason, and honours tolerance_seconds', () => {
    expect(failed(source.verify(signed(APP_MENTION, secrets[0], JSON_TYPE, now - 301), secrets)).reason).toMatch(/301 s old \(tolerance 300 s\)/);
    expect(failed(source.verify(signed(APP_MENTION, secrets[0], JSON_TYPE, now + 301), secrets)).reason).toMatch(/301 s in the future \(tolerance 300 s\)/);
    expect(source.verify(signed(APP_MENTION, secrets[0], JSON_TYPE, now - 299), secrets).ok).toBe(true);
    expect(slackSource.create({ tolerance_seconds: 60 }).verify(signed(APP_MENTION, secrets[0], JSON_TYPE, now - 90), secrets).ok).toBe(false);
  });

  it('says missing without X-Slack-Signature, and invalid without X-Slack-Request-Timestamp', () => {
    expect(source.verify(request(APP_MENTION, {}), secrets)).toEqual({ ok: false, reason: 'missing x-slack-signature header', missing: true });
    const noTimestamp = source.verify(request(APP_MENTION, { 'x-slack-signature': sign(secrets[0], APP_MENTION) }), secrets);
    expect(noTimestamp).toEqual({ ok: false, reason: expect.stringContaining('missing x-slack-request-timestamp') });
  });

  it.each<[string, HeaderMap]>([
    ['an empty signature', { 'x-slack-signature': '' }],
    ['a signature without v0=', { 'x-slack-signature': 'a'.repeat(64) }],
    ['another version', { 'x-slack-signature': `v1=${'a'.repeat(64)}` }],
    ['a short digest', { 'x-slack-signature': 'v0=abcd' }],
    ['non-hex digits', { 'x-slack-signature': `v0=${'g'.repeat(64)}` }],
    ['non-ASCII', { 'x-slack-signature': `v0=${'ü'.repeat(64)}` }],
    ['a 64 KiB signature', { 'x-slack-signature': `v0=${'a'.repeat(64 * 1024)}` }],
    ['an array of signatures', { 'x-slack-signature': [`v0=${'a'.repeat(64)}`, `v0=${'b'.repeat(64)}`] }],
    ['a non-numeric timestamp', { 'x-slack-request-timestamp': 'NaN' }],
    ['a negative timestamp', { 'x-slack-request-timestamp': '-5' }],
    ['a 64 KiB timestamp', { 'x-slack-request-timestamp': '1'.repeat(64 * 1024) }],
  ])('refuses %s cleanly, without throwing', (_what, overrides) => {
    const req = signed(APP_MENTION);
    const verdict = source.verify({ ...req, headers: { ...req.headers, ...overrides } }, secrets);
    expect(verdict.ok).toBe(false);
    expect(typeof (verdict as { reason: string }).reason).toBe('string');
  });

  describe('Events API', () => {
    it('names an event_callback by its inner event type and uses event_id as the delivery id', () => {
      const req = signed(APP_MENTION);
      const payload = parseSlackBody(req)!;
      expect(source.eventType!(req, payload)).toBe('app_mention');
      expect(source.deliveryId!(req, payload)).toBe('Ev123ABC456');
    });

    it("keeps the event_id of Slack's retries (X-Slack-Retry-Num), so a retry is a duplicate", () => {
      const retry = signed(APP_MENTION);
      retry.headers['x-slack-retry-num'] = '1';
      retry.headers['x-slack-retry-reason'] = 'http_timeout';
      expect(source.verify(retry, secrets).ok).toBe(true);
      expect(source.deliveryId!(retry, parseSlackBody(retry)!)).toBe('Ev123ABC456');
    });

    it('falls back to the outer type when the inner event has none, and names other bodies by their type', () => {
      const req = signed(APP_MENTION);
      expect(source.eventType!(req, { type: 'event_callback', event: {} })).toBe('event_callback');
      expect(source.eventType!(req, { type: 'event_callback', event: 'x' })).toBe('event_callback');
      const rateLimited = {
        token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
        type: 'app_rate_limited',
        team_id: 'T123456',
        minute_rate_limited: 1518467820,
        api_app_id: 'A123456',
      };
      expect(source.eventType!(req, rateLimited)).toBe('app_rate_limited');
      expect(source.deliveryId!(req, rateLimited)).toBeUndefined();
      expect(source.eventType!(req, {})).toBeUndefined();
    });

    it('answers url_verification with 200 and the challenge as plain text, as documented', () => {
      const req = signed(URL_VERIFICATION);
      expect(source.verify(req, secrets).ok).toBe(true);
      expect(source.handshake!(req, parseSlackBody(req)!, secrets[0])).toEqual({
        status: 200,
        body: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
        contentType: 'text/plain',
      });
      expect(source.handshake!(req, JSON.parse(APP_MENTION), secrets[0])).toBeUndefined();
      expect(source.handshake!(req, { type: 'url_verification' }, secrets[0])).toBeUndefined();
    });
  });

  describe('interactivity and slash commands (form-encoded)', () => {
    it('parses a payload= form into the interaction JSON, names it by type and uses trigger_id as the delivery id', () => {
      const req = signed(BLOCK_ACTIONS_FORM, secrets[0], FORM_TYPE);
      expect(source.verify(req, secrets)).toEqual({ ok: true, secretIndex: 0 });
      const payload = source.parse!(req)!;
      expect(payload).toEqual(BLOCK_ACTIONS);
      expect(source.eventType!(req, payload)).toBe('block_actions');
      expect(source.deliveryId!(req, payload)).toBe('12321423423.333649436676.d8c1bb837935619ccad0f624c448ffb3');
    });

    it('names a documented global shortcut payload `shortcut`', () => {
      // docs.slack.dev/reference/interaction-payloads/shortcuts-interaction-payload (global shortcut example).
      const shortcut = {
        type: 'shortcut',
        token: 'XXXXXXXXXXXXX',
        action_ts: '1581106241.371594',
        team: { id: 'TXXXXXXXX', domain: 'shortcuts-test' },
        user: { id: 'UXXXXXXXXX', username: 'aman', team_id: 'TXXXXXXXX' },
        callback_id: 'shortcut_create_task',
        trigger_id: '944799105734.773906753841.38b5894552bdd4a780554ee59d1f3638',
      };
      const req = signed(new URLSearchParams({ payload: JSON.stringify(shortcut) }).toString(), secrets[0], FORM_TYPE);
      const payload = source.parse!(req)!;
      expect(source.eventType!(req, payload)).toBe('shortcut');
      expect(source.deliveryId!(req, payload)).toBe('944799105734.773906753841.38b5894552bdd4a780554ee59d1f3638');
    });

    it('parses a slash command into its form fields, named slash_command, with trigger_id as the delivery id', () => {
      const { body } = DOCUMENTED_SIGNING_EXAMPLE;
      const req = signed(body, secrets[0], FORM_TYPE);
      const payload = source.parse!(req)!;
      expect(payload).toMatchObject({
        command: '/webhook-collect',
        text: '',
        user_name: 'roadrunner',
        channel_id: 'G8PSS9T3V',
        response_url: 'https://hooks.slack.com/commands/T1DC2JH3J/397700885554/96rGlfmibIGlgcZRskXaIFfN',
      });
      expect(source.eventType!(req, payload)).toBe('slash_command');
      expect(source.deliveryId!(req, payload)).toBe('398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c');
      expect(source.handshake!(req, payload, secrets[0])).toBeUndefined();
    });

    it("answers a slash command's ssl_check with a plain 200", () => {
      const req = signed('ssl_check=1&token=xyzz0WbapA4vBCDEFasx0q6G', secrets[0], FORM_TYPE);
      const payload = source.parse!(req)!;
      expect(source.handshake!(req, payload, secrets[0])).toEqual({ status: 200, body: '', contentType: 'text/plain' });
    });

    it('keeps a __proto__ form field an own property, and refuses bodies that are not objects', () => {
      const polluted = source.parse!(request('__proto__=x&command=%2Fa', {}, FORM_TYPE))!;
      expect(Object.getPrototypeOf(polluted)).toBe(Object.prototype);
      expect(Object.prototype.hasOwnProperty.call(polluted, '__proto__')).toBe(true);
      expect(source.parse!(request('', {}, FORM_TYPE))).toBeUndefined();
      expect(source.parse!(request('payload=%5B1%2C2%5D', {}, FORM_TYPE))).toBeUndefined();
      expect(source.parse!(request('payload=not-json', {}, FORM_TYPE))).toBeUndefined();
      expect(source.parse!(request('[1,2]', {}))).toBeUndefined();
      expect(source.parse!(request('not json', {}))).toBeUndefined();
      expect(source.parse!(request(APP_MENTION, {}))).toEqual(JSON.parse(APP_MENTION));
    });
  });
});
