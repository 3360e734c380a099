// Unit tests of the Discord interactions source with Ed25519 key pairs made here: requests are signed with the
// private key (node:crypto) and discord-interactions' verifyKey serves as the oracle for what Discord accepts.
import { generateKeyPairSync, sign as signEd25519, type KeyObject } from 'node:crypto';
import { verifyKey } from 'discord-interactions';
import type { SourceRequest } from '@hookwise/core';
import { PluginRegistry } from '@hookwise/gateway';
import plugin, { discordSource, ed25519PublicKey } from '../../src';

interface Pair {
  privateKey: KeyObject;
  /** The public key as the Developer Portal shows it: 64 hex digits. */
  hex: string;
}
function keyPair(): Pair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  return { privateKey, hex: raw.toString('hex') };
}
const APP = keyPair();
const OLD_APP = keyPair();
const STRANGER = keyPair();

// The APPLICATION_COMMAND example of https://discord.com/developers/docs/interactions/receiving-and-responding
// ("Interaction Object" / "Example Interaction"), and a PING (type 1, sent when the endpoint URL is saved) with the
// fields Discord sends along; its ids are made up.
const COMMAND =
  '{"type":2,"token":"A_UNIQUE_TOKEN","member":{"user":{"id":"53908232506183680","username":"Mason","avatar":"a_d5efa99b3eeaa7dd43acca82f5692432","discriminator":"1337","public_flags":131141},"roles":["539082325061836999"],"premium_since":null,"permissions":"2147483647","pending":false,"nick":null,"mute":false,"joined_at":"2017-03-13T19:19:14.040000+00:00","is_pending":false,"deaf":false},"id":"786008729715212338","guild_id":"290926798626357999","app_permissions":"442368","guild_locale":"en-US","locale":"en-US","data":{"options":[{"type":3,"name":"cardname","value":"The Gitrog Monster"}],"type":1,"name":"cardsearch","id":"771825006014889984"},"channel_id":"645027906669510667"}';
const PING =
  '{"app_permissions":"562949953601536","application_id":"1265289281451069440","entitlements":[],"id":"1265298362534363176","token":"A_UNIQUE_TOKEN","type":1,"user":{"id":"53908232506183680","username":"Mason"},"version":1}';

const NOW = Date.UTC(2024, 5, 1, 12, 0, 0);
const nowSeconds = String(Math.floor(NOW / 1000));
const signWith = (pair: Pair, timestamp: string, body: string) => signEd25519(null, Buffer.from(timestamp + body), pair.privateKey).toString('hex');
const request = (body: string, headers: SourceRequest['headers'], receivedAt = NOW): SourceRequest => ({
  url: 'https://hooks.example.com/webhooks/discord',
  rawBody: Buffer.from(body),
  headers,
  receivedAt,
});
const signed = (body = COMMAND, { pair = APP, timestamp = nowSeconds, receivedAt = NOW } = {}) =>
  request(body, { 'x-signature-ed25519': signWith(pair, timestamp, body), 'x-signature-timestamp': timestamp }, receivedAt);
const source = discordSource.create();

describe('discord source: verify', () => {
  it('accepts what discord-interactions accepts: a signature by the application key', async () => {
    const req = signed();
    await expect(verifyKey(req.rawBody, req.headers['x-signature-ed25519'] as string, nowSeconds, APP.hex)).resolves.toBe(true);
    expect(source.verify(req, [APP.hex])).toEqual({ ok: true, secretIndex: 0 });
  });

  it('reports which public key of a rotation matched', () => {
    expect(source.verify(signed(COMMAND, { pair: OLD_APP }), [APP.hex, OLD_APP.hex])).toEqual({ ok: true, secretIndex: 1 });
  });

  it('refuses a signature by another key, as discord-interactions does', async () => {
    const req = signed(COMMAND, { pair: STRANGER });
    await expect(verifyKey(req.rawBody, req.headers['x-signature-ed25519'] as string, nowSeconds, APP.hex)).resolves.toBe(false);
    expect(source.verify(req, [APP.hex, OLD_APP.hex])).toEqual({ ok: false, reason: "the signature does not verify with the route's public keys" });
  });

  it('refuses a changed body or timestamp', () => {
    const good = signed();
    expect(source.verify({ ...good, rawBody: Buffer.from(COMMAND.replace('Gitrog', 'Gitr0g')) }, [APP.hex]).ok).toBe(false);
    expect(source.verify({ ...good, headers: { ...good.headers, 'x-signature-timestamp': String(Number(nowSeconds) - 1) } }, [APP.hex]).ok).toBe(false);
  });

  it('reads keys and signatures in either hex case', () => {
    const req = signed();
    const upper = { ...req, headers: { ...req.headers, 'x-signature-ed25519': (req.headers['x-signature-ed25519'] as string).toUpperCase() } };
    expect(source.verify(upper, [APP.hex.toUpperCase()])).toEqual({ ok: true, secretIndex: 0 });
  });

  it('names by position (never by value) a secret that is not an Ed25519 public key', () => {
    const notAKey = 'this-is-not-a-public-key';
    const verdict = source.verify(signed(COMMAND, { pair: STRANGER }), [notAKey, APP.hex]);
    expect(verdict).toEqual({ ok: false, reason: expect.stringContaining('secret #1 of the route is not a 64-hex-digit Ed25519 public key') });
    expect(verdict.ok || verdict.reason.includes(notAKey)).toBe(false);
    expect(source.verify(signed(), [notAKey, APP.hex])).toEqual({ ok: true, secretIndex: 1 });
    expect(ed25519PublicKey(notAKey)).toBeUndefined();
    expect(ed25519PublicKey('0'.repeat(63))).toBeUndefined();
  });

  it('refuses a request older than the window (300 s by default), and one from the future', () => {
    expect(source.verify(signed(COMMAND, { receivedAt: NOW + 301_000 }), [APP.hex])).toEqual({
      ok: false,
      reason: expect.stringContaining('301 s old (tolerance 300 s)'),
    });
    expect(source.verify(signed(COMMAND, { receivedAt: NOW - 301_000 }), [APP.hex])).toEqual({ ok: false, reason: expect.stringContaining('in the future') });
    expect(source.verify(signed(COMMAND, { receivedAt: NOW + 299_000 }), [APP.hex]).ok).toBe(true);
    expect(discordSource.create({ tolerance_seconds: 30 }).verify(signed(COMMAND, { receivedAt: NOW + 31_000 }), [APP.hex]).ok).toBe(false);
  });

  it('answers missing: true without X-Signature-Ed25519, and a plain failure without the timestamp', () => {
    expect(source.verify(request(COMMAND, { 'x-signature-timestamp': nowSeconds }), [APP.hex])).toEqual({
      ok: false,
      reason: 'missing x-signature-ed25519 header',
      missing: true,
    });
    expect(source.verify(request(COMMAND, { 'x-signature-ed25519': '' }), [APP.hex])).toMatchObject({ missing: true });
    const noTimestamp = source.verify(request(COMMAND, { 'x-signature-ed25519': signWith(APP, nowSeconds, COMMAND) }), [APP.hex]);
    expect(noTimestamp).toEqual({ ok: false, reason: expect.stringContaining('missing x-signature-timestamp') });
  });

  it.each([
    ['127 hex digits', () => signWith(APP, nowSeconds, COMMAND).slice(1)],
    ['malformed hex', () => 'zz'.repeat(64)],
    ['base64 instead of hex', () => Buffer.from(signWith(APP, nowSeconds, COMMAND), 'hex').toString('base64')],
    ['non-ASCII characters', () => 'ä'.repeat(128)],
    ['a 64 KiB value', () => 'a'.repeat(64 * 1024)],
    ['an array of junk', () => ['00', '11']],
    ['a well-formed signature of nothing', () => '0'.repeat(128)],
  ])('refuses %s without throwing', (_what, value) => {
    const verdict = source.verify(request(COMMAND, { 'x-signature-ed25519': value(), 'x-signature-timestamp': nowSeconds }), [APP.hex]);
    expect(verdict.ok).toBe(false);
    expect(verdict).not.toHaveProperty('missing');
  });

  it('refuses garbage timestamps (signed ones too) without throwing', () => {
    for (const timestamp of ['é', 'soon', String(NOW), '9'.repeat(64 * 1024)]) {
      expect(source.verify(signed(COMMAND, { timestamp }), [APP.hex]).ok).toBe(false);
    }
  });
});

describe('discord source: event type, delivery id, PING', () => {
  const payload = JSON.parse(COMMAND) as Record<string, unknown>;

  it('names the interaction type', () => {
    expect(source.eventType!(signed(), payload)).toBe('application_command');
    expect(source.eventType!(signed(), { type: 3 })).toBe('message_component');
    expect(source.eventType!(signed(), { type: 4 })).toBe('application_command_autocomplete');
    expect(source.eventType!(signed(), { type: 5 })).toBe('modal_submit');
    expect(source.eventType!(signed(), { type: 9 })).toBe('interaction_9');
    expect(source.eventType!(signed(), { type: '2' })).toBeUndefined();
  });

  it("uses the interaction's id as delivery id", () => {
    expect(source.deliveryId!(signed(), payload)).toBe('786008729715212338');
    expect(source.deliveryId!(signed(), {})).toBeUndefined();
  });

  it('answers a verified PING with 200 {"type":1} and lets every other interaction through', () => {
    const ping = signed(PING);
    expect(source.verify(ping, [APP.hex])).toEqual({ ok: true, secretIndex: 0 });
    expect(source.handshake!(ping, JSON.parse(PING), APP.hex)).toEqual({ status: 200, body: { type: 1 } });
    expect(source.handshake!(signed(), payload, APP.hex)).toBeUndefined();
  });
});

describe('discord plugin', () => {
  it('contributes the source discord on X-Signature-Ed25519', () => {
    expect(plugin.contributes.map((c) => `${c.kind}:${c.id}`)).toEqual(['source:discord']);
    expect(source.headers[0]).toBe('x-signature-ed25519');
  });

  it('validates its options as the gateway does, with a 300 s default window', () => {
    const registry = new PluginRegistry([{ plugin, source: '@hookwise/plugin-source-discord', options: {} }]);
    expect(registry.validateOptions('source', 'discord', {}, 'source_options')).toEqual({ options: { tolerance_seconds: 300 }, problems: [] });
    expect(registry.validateOptions('source', 'discord', { public_key: 'x' }, 'source_options').problems).toHaveLength(1);
  });
});
