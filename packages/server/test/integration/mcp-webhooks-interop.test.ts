// The MCP Events server's events/subscribe and events/unsubscribe as a client of the experimental design sketch
// (modelcontextprotocol/experimental-ext-triggers-events, as mcp-handler 2.4.0 implements its server side) calls
// them, beside SEP-3415's reading that mcp-webhooks.test.ts drives: the client chooses the Standard Webhooks secret
// (`delivery.secret`, "whsec_" and the base64 of 24 to 64 bytes), asks a TTL in ms (`ttlMs`), refreshes by
// subscribing again with the same key (name, arguments, callback URL) and unsubscribes with that key; the answer
// also carries the sketch's names (`id`, `refreshBefore`, `cursor`, `truncated`). Over real HTTP with the official
// MCP SDK's client, a real receiver, and deliveries checked with the `standardwebhooks` library.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { ALICE, BOB, WebhooksHarness, bodyOf, call, sleep, subscribe, waitFor } from './mcp-webhooks-harness';

const h = new WebhooksHarness('hookwise-mcp-interop-');
const whsec = (bytes = 32) => `whsec_${randomBytes(bytes).toString('base64')}`;
const webhook = (path: string, secret?: string) => ({ mode: 'webhook', url: `${h.base}${path}`, ...(secret ? { secret } : {}) });
const listed = async () => (await h.gw!.gateway.features.mcpEvents.subscriptionListing()).filter((s) => s.kind === 'webhook');

beforeAll(() => h.setUp());
afterAll(() => h.tearDown());

describe('MCP Events webhook subscriptions, as the design sketch reads them', () => {
  it('takes a secret the client chose: the challenge and the deliveries are signed with it; the answer has both readings', async () => {
    const alice = await h.connect(ALICE);
    const secret = whsec();
    const sub = await subscribe(alice, { name: 'prs', arguments: {}, delivery: webhook('/chosen', secret), ttlMs: 600_000 });
    expect(sub).toMatchObject({ resultType: 'complete', secret, id: sub.subscriptionId, refreshBefore: sub.expiresAt, truncated: false, ttl: 600 });
    // The cursor is the store's position of now (hw1.<base64url of [receivedAt, jobId]>), as an events/poll without a cursor starts from.
    const [at] = JSON.parse(Buffer.from(sub.cursor.replace(/^hw1\./, ''), 'base64url').toString('utf8')) as [number, string];
    expect(Math.abs(at - Date.now())).toBeLessThan(5000);
    const challenge = h.verifications.find((v) => v.headers['x-mcp-subscription-id'] === sub.id);
    expect(() => new Webhook(secret).verify(challenge!.body, challenge!.headers as Record<string, string>)).not.toThrow();

    await h.postPr('ix-1', 'opened');
    await waitFor('the delivery', () => h.deliveriesTo('/chosen').length === 1);
    const [delivered] = h.deliveriesTo('/chosen');
    expect(new Webhook(secret).verify(delivered.body, delivered.headers as Record<string, string>)).toMatchObject({ eventId: 'ix-1', name: 'prs' });
    expect(h.gw!.fullLogText()).not.toContain(secret.slice(6));
    await call(alice, 'events/unsubscribe', { subscriptionId: sub.id });
  });

  it('refreshes on the same key (name, arguments, callback): one subscription, one delivery per event; a new secret is verified and replaces the old', async () => {
    const alice = await h.connect(ALICE);
    const first = whsec();
    const args = { filter: { path: 'action', equals: 'opened' } };
    const a = await subscribe(alice, { name: 'prs', arguments: args, delivery: webhook('/keyed', first), ttlMs: 120_000 });
    const challenges = () => h.verifications.filter((v) => v.headers['x-mcp-subscription-id'] === a.id).length;
    expect(challenges()).toBe(1);
    // The same key again (its filter's keys in another order): a refresh, not a second subscription; no new challenge.
    const b = await subscribe(alice, {
      name: 'prs',
      arguments: { filter: { equals: 'opened', path: 'action' } },
      delivery: webhook('/keyed', first),
      ttlMs: 600_000,
    });
    expect(b.id).toBe(a.id);
    expect(b.secret).toBe(first);
    expect(Date.parse(b.refreshBefore)).toBeGreaterThan(Date.parse(a.refreshBefore));
    expect(challenges()).toBe(1);
    expect((await listed()).filter((s) => s.url === `${h.base}/keyed`)).toHaveLength(1);
    await h.gw!.waitForLog(`MCP client 'alice' refreshed 'prs' by webhook (subscription ${a.id}`);

    await h.postPr('ix-k1', 'opened');
    await waitFor('the delivery', () => h.deliveriesTo('/keyed').length >= 1);
    await sleep(400);
    expect(h.deliveriesTo('/keyed').map((r) => bodyOf(r).eventId)).toEqual(['ix-k1']);

    // The same key with a new secret: the callback is verified again with it, and deliveries are signed with it.
    const second = whsec(48);
    const c = await subscribe(alice, { name: 'prs', arguments: args, delivery: webhook('/keyed', second) });
    expect(c).toMatchObject({ id: a.id, secret: second });
    expect(challenges()).toBe(2);
    const last = h.verifications.filter((v) => v.headers['x-mcp-subscription-id'] === a.id)[1];
    expect(() => new Webhook(second).verify(last.body, last.headers as Record<string, string>)).not.toThrow();
    await h.postPr('ix-k2', 'opened');
    await waitFor('the delivery with the new secret', () => h.deliveriesTo('/keyed').length === 2);
    const delivered = h.deliveriesTo('/keyed')[1];
    expect(new Webhook(second).verify(delivered.body, delivered.headers as Record<string, string>)).toMatchObject({ eventId: 'ix-k2' });
    expect(() => new Webhook(first).verify(delivered.body, delivered.headers as Record<string, string>)).toThrow();

    // Another filter, or another callback, is another key: another subscription.
    const other = await subscribe(alice, { name: 'prs', arguments: {}, delivery: webhook('/keyed', first) });
    const elsewhere = await subscribe(alice, { name: 'prs', arguments: args, delivery: webhook('/keyed-2', first) });
    expect(new Set([a.id, other.id, elsewhere.id]).size).toBe(3);
    for (const id of [a.id, other.id, elsewhere.id]) await call(alice, 'events/unsubscribe', { subscriptionId: id });
  });

  it('refuses a secret that is not "whsec_" and the base64 of 24 to 64 bytes, naming the rule and not the value', async () => {
    const alice = await h.connect(ALICE);
    const bad = [
      'not-a-secret-at-all-0123456789abcdef',
      whsec(16),
      whsec(65),
      `whsec_${'*'.repeat(44)}`,
      `whsec_${randomBytes(32).toString('base64url').replace(/=+$/, '')}-_`,
      12345,
    ];
    const before = h.verifications.length;
    for (const secret of bad) {
      const refused = subscribe(alice, { name: 'prs', arguments: {}, delivery: { mode: 'webhook', url: `${h.base}/bad`, secret } });
      await expect(refused).rejects.toMatchObject({ code: -32602 });
      await expect(refused).rejects.toThrow(/delivery\.secret: "whsec_" followed by the base64 of 24 to 64 random bytes/);
      if (typeof secret === 'string') await expect(refused).rejects.not.toThrow(secret.slice(6));
    }
    // Nothing was posted to the callback, and the bounds themselves are taken.
    expect(h.verifications.length).toBe(before);
    for (const bytes of [24, 64]) {
      const sub = await subscribe(alice, { name: 'prs', arguments: {}, delivery: webhook(`/bounds/${bytes}`, whsec(bytes)) });
      await call(alice, 'events/unsubscribe', { subscriptionId: sub.id });
    }
  });

  it('honours ttlMs within the same bounds as ttl (60 s to 24 h), before ttl when both are given', async () => {
    const alice = await h.connect(ALICE);
    const expiry = (sub: { refreshBefore: string }) => Date.parse(sub.refreshBefore) - Date.now();
    const cases: Array<[Record<string, unknown>, number, number]> = [
      [{ ttlMs: 120_000 }, 120_000, 120],
      [{ ttlMs: 90_000, ttl: 3600 }, 90_000, 90],
      [{ ttlMs: 1000 }, 60_000, 60],
      [{ ttlMs: 10_000_000_000 }, 86_400_000, 86_400],
      [{ ttl: 300 }, 300_000, 300],
    ];
    for (const [i, [ttl, ms, seconds]] of cases.entries()) {
      const sub = await subscribe(alice, { name: 'prs', arguments: {}, delivery: webhook(`/ttl/${i}`), ...ttl });
      expect(sub.ttl).toBe(seconds);
      expect(expiry(sub)).toBeGreaterThan(ms - 5000);
      expect(expiry(sub)).toBeLessThanOrEqual(ms);
      await call(alice, 'events/unsubscribe', { subscriptionId: sub.id });
    }
    for (const ttlMs of [-5, 0, 'soon']) {
      await expect(subscribe(alice, { name: 'prs', arguments: {}, delivery: webhook('/ttl/bad'), ttlMs })).rejects.toMatchObject({ code: -32602 });
    }
  });

  it('unsubscribes by key {name, arguments, delivery: {url}}; a key nobody holds, or another client, is answered not found', async () => {
    const alice = await h.connect(ALICE);
    const bob = await h.connect(BOB);
    const args = { filter: { path: 'action', equals: 'closed' } };
    const sub = await subscribe(alice, { name: 'prs', arguments: args, delivery: webhook('/by-key', whsec()) });
    // Bob was not given prs: answered as if it did not exist; alice's subscription stays.
    await expect(call(bob, 'events/unsubscribe', { name: 'prs', arguments: args, delivery: { url: `${h.base}/by-key` } })).rejects.toMatchObject({
      code: -32023,
    });
    // Another argument or URL is another key.
    await expect(call(alice, 'events/unsubscribe', { name: 'prs', arguments: {}, delivery: { url: `${h.base}/by-key` } })).rejects.toMatchObject({
      code: -32023,
      data: { kind: 'subscription' },
    });
    await expect(call(alice, 'events/unsubscribe', { name: 'prs', arguments: args, delivery: { url: `${h.base}/by-key-2` } })).rejects.toMatchObject({
      code: -32023,
    });
    expect((await listed()).map((s) => s.id)).toContain(sub.id);

    await expect(call(alice, 'events/unsubscribe', { name: 'prs', arguments: args, delivery: { url: `${h.base}/by-key` } })).resolves.toEqual({
      resultType: 'complete',
    });
    expect((await listed()).map((s) => s.id)).not.toContain(sub.id);
    await h.postPr('ix-u1', 'closed');
    await sleep(500);
    expect(h.deliveriesTo('/by-key')).toHaveLength(0);
    await expect(call(alice, 'events/unsubscribe', { name: 'prs', arguments: args, delivery: { url: `${h.base}/by-key` } })).rejects.toMatchObject({
      code: -32023,
      data: { kind: 'subscription' },
    });
    await expect(call(alice, 'events/unsubscribe', { name: 'prs', arguments: args })).rejects.toMatchObject({ code: -32602 });
  });

  it('takes a client secret on a refresh by subscriptionId too (verified again with it)', async () => {
    const alice = await h.connect(ALICE);
    const made = await subscribe(alice, { name: 'prs', delivery: webhook('/by-id') });
    const chosen = whsec();
    const again = await subscribe(alice, { name: 'prs', subscriptionId: made.subscriptionId, delivery: webhook('/by-id', chosen) });
    expect(again).toMatchObject({ subscriptionId: made.subscriptionId, secret: chosen });
    expect(h.verifications.filter((v) => v.headers['x-mcp-subscription-id'] === made.subscriptionId)).toHaveLength(2);
    await call(alice, 'events/unsubscribe', { subscriptionId: made.subscriptionId });
  });
  it('makes one subscription of two subscribes with the same key at the same instant', async () => {
    const alice = await h.connect(ALICE);
    const secret = whsec();
    const params = { name: 'prs', arguments: {}, delivery: webhook('/twice', secret), ttlMs: 600_000 };
    const [a, b] = await Promise.all([subscribe(alice, params), subscribe(alice, params)]);
    expect(b.id).toBe(a.id);
    expect((await listed()).filter((s) => s.url === `${h.base}/twice`)).toHaveLength(1);
    await h.postPr('ix-twice', 'opened');
    await waitFor('the delivery', () => h.deliveriesTo('/twice').length === 1);
    await sleep(300);
    expect(h.deliveriesTo('/twice').map((r) => bodyOf(r).eventId)).toEqual(['ix-twice']);
    await call(alice, 'events/unsubscribe', { subscriptionId: a.id });
  });
});
