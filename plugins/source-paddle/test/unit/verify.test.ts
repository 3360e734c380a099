// Unit tests of the Paddle source. Paddle's Node SDK (@paddle/paddle-node-sdk) verifies but does not sign, so every
// signature made here is first accepted by the SDK's own verifier (the oracle), then checked by the source; the
// SDK's published test vector is checked too. Covers rotation, several h1, replay window, hostile headers.
import { createHmac } from 'node:crypto';
import { NodeRuntime, Webhooks, WebhooksValidator } from '@paddle/paddle-node-sdk';
import type { HeaderMap, SourceRequest } from '@hookwise/core';
import plugin, { paddleSource, DEFAULT_TOLERANCE_SECONDS } from '../../src';

// The customer.created example of Paddle's webhook reference (developer.paddle.com, "customer.created"; the same
// example ships as a mock in the Node SDK), as Paddle posts it: compact JSON.
const CUSTOMER_CREATED = JSON.stringify({
  event_id: 'evt_01h8441jx8x1q971q9ksksqh82',
  event_type: 'customer.created',
  occurred_at: '2023-08-18T10:46:18.792661Z',
  notification_id: 'ntf_01h8441jz6fr97hv7zemswj8cw',
  data: {
    id: 'ctm_01h8441jn5pcwrfhwh78jqt8hk',
    name: 'Sam Miller',
    email: 'sam@example.com',
    locale: 'en',
    status: 'active',
    custom_data: { customer_reference_id: 'abcd1234' },
    created_at: '2023-08-18T10:46:18.533Z',
    updated_at: '2023-08-18T10:46:18.533Z',
    marketing_consent: false,
  },
});
const body = Buffer.from(CUSTOMER_CREATED);
// Endpoint secret keys look like this (pdl_ntfset_<destination id>_<random>); these are made up.
const SECRETS = [
  'pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_NEWnewNEWnewNEWnewNEWnewNEWnew',
  'pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_OLDoldOLDoldOLDoldOLDoldOLDold',
] as const;

const nowSeconds = () => Math.floor(Date.now() / 1000);
/** h1 as Paddle computes it: HMAC-SHA256 of "<ts>:<raw body>" with the destination's secret key, hex. */
const h1 = (secret: string, ts: number, data: Buffer = body) => createHmac('sha256', secret).update(`${ts}:`).update(data).digest('hex');
const header = (secret: string, ts = nowSeconds(), data: Buffer = body) => `ts=${ts};h1=${h1(secret, ts, data)}`;

function request(signature: string | string[] | undefined, rawBody: Buffer = body, receivedAt = Date.now()): SourceRequest {
  const headers: HeaderMap = { 'content-type': 'application/json', 'paddle-signature': signature };
  return { headers, rawBody, url: 'https://hooks.example.com/webhooks/paddle', receivedAt };
}

const source = paddleSource.create({ tolerance_seconds: DEFAULT_TOLERANCE_SECONDS });

beforeAll(() => {
  NodeRuntime.initialize();
});

describe("paddle source: signatures Paddle's SDK accepts", () => {
  it('is contributed as source paddle and marks its style by Paddle-Signature', () => {
    expect(plugin.contributes.map((c) => `${c.kind}:${c.id}`)).toEqual(['source:paddle']);
    expect(source.headers).toEqual(['paddle-signature']);
  });

  it("accepts the SDK's own test vector (ts=1698796800, secret VALID_SECRET) at that time", () => {
    // From the SDK's webhooks-validator tests: body '{"data": ["1", "2"]}' signed with 'VALID_SECRET'.
    const vector = 'ts=1698796800;h1=a300428748dce5c70e4da19bffd60769591ea969c99dea3105d0ec9612cf43f9';
    const verdict = source.verify(request(vector, Buffer.from('{"data": ["1", "2"]}'), 1698796800 * 1000 + 1000), ['another-key', 'VALID_SECRET']);
    expect(verdict).toEqual({ ok: true, secretIndex: 1 });
  });

  it('accepts a signature the SDK accepts, and parses the example to the same event type and id as the SDK', async () => {
    const signature = header(SECRETS[0]);
    const event = await new Webhooks().unmarshal(CUSTOMER_CREATED, SECRETS[0], signature);
    expect(source.verify(request(signature), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
    const payload = JSON.parse(CUSTOMER_CREATED) as Record<string, unknown>;
    expect(source.eventType?.(request(signature), payload)).toBe(event.eventType);
    expect(source.deliveryId?.(request(signature), payload)).toBe(event.eventId);
  });

  it('names the second secret during a rotation on our side', async () => {
    const signature = header(SECRETS[1]);
    expect(await new Webhooks().isSignatureValid(CUSTOMER_CREATED, SECRETS[1], signature)).toBe(true);
    expect(source.verify(request(signature), SECRETS)).toEqual({ ok: true, secretIndex: 1 });
  });

  it("accepts any of several h1 in one header (Paddle's rotation of the secret key), in either order", async () => {
    const ts = nowSeconds();
    const rotating = `ts=${ts};h1=${h1('pdl_ntfset_retired_key', ts)};h1=${h1(SECRETS[0], ts)}`;
    // The SDK reads the last h1 only, so it accepts this order.
    expect(await new Webhooks().isSignatureValid(CUSTOMER_CREATED, SECRETS[0], rotating)).toBe(true);
    expect(source.verify(request(rotating), [SECRETS[0]])).toEqual({ ok: true, secretIndex: 0 });
    const reversed = `ts=${ts};h1=${h1(SECRETS[0], ts)};h1=${h1('pdl_ntfset_retired_key', ts)}`;
    expect(source.verify(request(reversed), [SECRETS[0]])).toEqual({ ok: true, secretIndex: 0 });
  });

  it('ignores keys it does not know (h2=...) and spaces around items', () => {
    const ts = nowSeconds();
    expect(source.verify(request(`ts=${ts}; h1=${h1(SECRETS[0], ts)}; h2=RANDOM_HASH`), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
  });

  it('hashes the exact bytes: a body that is not valid UTF-8 is verified as received', () => {
    const raw = Buffer.concat([Buffer.from('{"event_type":"x","blob":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    expect(source.verify(request(header(SECRETS[0], nowSeconds(), raw), raw), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
  });
});

describe('paddle source: refusals', () => {
  it('refuses a key the route does not know, without naming any secret', async () => {
    const signature = header('pdl_ntfset_attacker');
    expect(await new Webhooks().isSignatureValid(CUSTOMER_CREATED, SECRETS[0], signature)).toBe(false);
    const verdict = source.verify(request(signature), SECRETS);
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.missing).toBeUndefined();
    for (const secret of [...SECRETS, 'pdl_ntfset_attacker']) expect(verdict.reason).not.toContain(secret);
  });

  it('refuses a tampered body, and a ts changed after signing', () => {
    const ts = nowSeconds();
    const signature = header(SECRETS[0], ts);
    expect(source.verify(request(signature, Buffer.from(CUSTOMER_CREATED.replace('sam@example.com', 'eve@example.com'))), SECRETS).ok).toBe(false);
    expect(source.verify(request(signature.replace(`ts=${ts}`, `ts=${ts + 1}`)), SECRETS).ok).toBe(false);
  });

  it(`refuses a signature older than the window (default ${DEFAULT_TOLERANCE_SECONDS} s) with a reason naming it`, () => {
    const receivedAt = Date.now();
    const ts = Math.floor(receivedAt / 1000);
    expect(source.verify(request(header(SECRETS[0], ts - DEFAULT_TOLERANCE_SECONDS + 5), body, receivedAt), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
    const stale = source.verify(request(header(SECRETS[0], ts - DEFAULT_TOLERANCE_SECONDS - 5), body, receivedAt), SECRETS);
    expect(stale.ok).toBe(false);
    if (!stale.ok) expect(stale.reason).toMatch(/s old \(tolerance 300 s\)/);
  });

  it('refuses a signature from the future beyond the window', () => {
    const receivedAt = Date.now();
    const ts = Math.floor(receivedAt / 1000);
    const future = source.verify(request(header(SECRETS[0], ts + DEFAULT_TOLERANCE_SECONDS + 5), body, receivedAt), SECRETS);
    expect(future.ok).toBe(false);
    if (!future.ok) expect(future.reason).toMatch(/in the future/);
  });

  it("takes the SDK's 5 s when tolerance_seconds: 5, refusing what the SDK refuses", async () => {
    const strict = paddleSource.create({ tolerance_seconds: 5 });
    const old = header(SECRETS[0], nowSeconds() - 30);
    expect(await new Webhooks().isSignatureValid(CUSTOMER_CREATED, SECRETS[0], old)).toBe(false);
    expect(strict.verify(request(old), SECRETS).ok).toBe(false);
    expect(strict.verify(request(header(SECRETS[0])), SECRETS)).toEqual({ ok: true, secretIndex: 0 });
  });

  it('says stale only for a genuine signature: an old forged one gets the digest reason', () => {
    const verdict = source.verify(request(header('forger', nowSeconds() - 10_000)), SECRETS);
    expect(verdict).toEqual({ ok: false, reason: 'digest does not match' });
  });

  it('says missing without Paddle-Signature', () => {
    expect(source.verify(request(undefined), SECRETS)).toEqual({ ok: false, reason: 'missing paddle-signature header', missing: true });
    expect(source.verify(request(''), SECRETS)).toMatchObject({ ok: false, missing: true });
    expect(source.verify(request([]), SECRETS)).toMatchObject({ ok: false, missing: true });
  });

  it.each<[string, () => string | string[]]>([
    ['an array holding an empty value', () => ['']],
    ['no ts', () => `h1=${h1(SECRETS[0], nowSeconds())}`],
    ['no h1', () => `ts=${nowSeconds()}`],
    ['two ts', () => `ts=${nowSeconds()};ts=${nowSeconds() - 1};h1=${h1(SECRETS[0], nowSeconds())}`],
    ['a ts that is not a number', () => `ts=soon;h1=${h1(SECRETS[0], nowSeconds())}`],
    ['a negative ts', () => `ts=-1;h1=${h1(SECRETS[0], -1)}`],
    ['a ts in milliseconds', () => `ts=${Date.now()}000;h1=${h1(SECRETS[0], Date.now())}`],
    ['commas instead of semicolons', () => `ts=${nowSeconds()},h1=${h1(SECRETS[0], nowSeconds())}`],
    ['a short h1', () => `ts=${nowSeconds()};h1=abc`],
    ['non-hex digits', () => `ts=${nowSeconds()};h1=${'y'.repeat(64)}`],
    ['non-ASCII characters', () => `ts=${nowSeconds()};h1=${'ñ'.repeat(64)}`],
    ['a 64 KiB value', () => `ts=${nowSeconds()};h1=${'b'.repeat(64 * 1024)}`],
    ['thousands of items', () => Array.from({ length: 5000 }, () => 'h1=00').join(';')],
  ])('refuses %s cleanly, without throwing', (_what, value) => {
    let verdict: ReturnType<typeof source.verify> | undefined;
    expect(() => {
      verdict = source.verify(request(value()), SECRETS);
    }).not.toThrow();
    expect(verdict?.ok).toBe(false);
  });

  it('the SDK throws on a header without ts and h1; the source answers with a reason instead', async () => {
    await expect(new WebhooksValidator().isValidSignature(CUSTOMER_CREATED, SECRETS[0], 'garbage')).rejects.toThrow();
    expect(source.verify(request('garbage'), SECRETS)).toMatchObject({ ok: false });
  });
});

describe('paddle source: event type and delivery id', () => {
  const payload = JSON.parse(CUSTOMER_CREATED) as Record<string, unknown>;

  it("takes the event type from the payload's event_type", () => {
    expect(source.eventType?.(request('x'), payload)).toBe('customer.created');
    expect(source.eventType?.(request('x'), { event_type: 'transaction.completed' })).toBe('transaction.completed');
    expect(source.eventType?.(request('x'), { event_type: 7 })).toBeUndefined();
  });

  it('takes the delivery id from event_id by default (one event counts once), else notification_id', () => {
    expect(source.deliveryId?.(request('x'), payload)).toBe('evt_01h8441jx8x1q971q9ksksqh82');
    expect(source.deliveryId?.(request('x'), { notification_id: 'ntf_01h8441jz6fr97hv7zemswj8cw' })).toBe('ntf_01h8441jz6fr97hv7zemswj8cw');
    expect(source.deliveryId?.(request('x'), {})).toBeUndefined();
  });

  it('takes notification_id first with delivery_id: notification_id', () => {
    const byNotification = paddleSource.create({ delivery_id: 'notification_id' });
    expect(byNotification.deliveryId?.(request('x'), payload)).toBe('ntf_01h8441jz6fr97hv7zemswj8cw');
    expect(byNotification.deliveryId?.(request('x'), { event_id: 'evt_x' })).toBe('evt_x');
  });
});
