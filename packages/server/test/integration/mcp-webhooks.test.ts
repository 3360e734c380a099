// Webhook delivery of the MCP Events server, against a real gateway on SQLite, real MCP clients of the official
// SDK and a real HTTP receiver: subscribe (the callback verified by an echoed challenge), each accepted event posted
// signed in the Standard Webhooks format (checked with the `standardwebhooks` library), refresh by subscribing
// again with the id, unsubscribe, expiry, the errors a client can meet, a failing callback retried and reported
// without slowing ingest, and a subscription that outlives a restart.
import { Webhook } from 'standardwebhooks';
import { ALICE, BOB, WebhooksHarness, bodyOf, call, subscribe, waitFor } from './mcp-webhooks-harness';

const h = new WebhooksHarness('hookwise-mcp-webhooks-');

beforeAll(() => h.setUp());
afterAll(() => h.tearDown());

describe('MCP Events webhook delivery', () => {
  it('lists webhook as a delivery mode', async () => {
    const alice = await h.connect(ALICE);
    const listed = await call<{ events: Array<{ delivery: string[] }> }>(alice, 'events/list', {});
    expect(listed.events[0].delivery).toEqual(['poll', 'push', 'webhook']);
  });

  it('subscribes after the callback echoes a challenge, and posts each accepted event signed with the subscription secret', async () => {
    const alice = await h.connect(ALICE);
    const sub = await subscribe(alice, { name: 'prs/pull_request', delivery: { mode: 'webhook', url: `${h.base}/hook` }, ttl: 600 });
    expect(sub).toMatchObject({ resultType: 'complete', ttl: 600 });
    expect(sub.subscriptionId).toMatch(/^sub_[0-9a-f]{32}$/);
    expect(sub.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Date.parse(sub.expiresAt) - Date.now()).toBeGreaterThan(590_000);
    const challenge = h.verifications.find((v) => v.headers['x-mcp-subscription-id'] === sub.subscriptionId);
    expect(challenge).toBeDefined();
    // The verification is signed like a delivery, so a receiver that knows the secret can check it.
    expect(() => new Webhook(sub.secret).verify(challenge!.body, challenge!.headers as Record<string, string>)).not.toThrow();

    await h.postPr('wh-1', 'opened');
    await h.postPr('wh-2', 'labeled', 'issues'); // another event type of the route: not this subscription's
    await waitFor('the delivery', () => h.deliveriesTo('/hook').length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const mine = h.deliveriesTo('/hook').filter((r) => r.headers['x-mcp-subscription-id'] === sub.subscriptionId);
    expect(mine).toHaveLength(1);
    const verified = new Webhook(sub.secret).verify(mine[0].body, mine[0].headers as Record<string, string>) as Record<string, unknown>;
    expect(verified).toMatchObject({ eventId: 'wh-1', name: 'prs/pull_request', data: { action: 'opened', number: 7 } });
    expect(typeof verified.cursor).toBe('string');
    expect(Number.isNaN(Date.parse(String(verified.timestamp)))).toBe(false);
    expect(mine[0].headers['webhook-id']).toMatch(/^msg_/);
    // A wrong key does not verify it.
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(mine[0].body, mine[0].headers as Record<string, string>)).toThrow();
    // The secret never reaches the log; the subscription does, with its callback.
    expect(h.gw!.fullLogText()).not.toContain(sub.secret.slice(6));
    expect(h.gw!.fullLogText()).toContain(
      `MCP client 'alice' subscribed to 'prs/pull_request' by webhook (subscription ${sub.subscriptionId}, callback ${h.base}/hook, until `,
    );

    // Polls with the delivered cursor go on from there.
    const polled = await call<{ events: unknown[] }>(alice, 'events/poll', { name: 'prs/pull_request', cursor: verified.cursor });
    expect(polled.events).toEqual([]);
    await call(alice, 'events/unsubscribe', { subscriptionId: sub.subscriptionId });
  });

  it("delivers only what passes the subscriber's filter", async () => {
    const alice = await h.connect(ALICE);
    const sub = await subscribe(alice, {
      name: 'prs',
      arguments: { filter: { path: 'action', equals: 'closed' } },
      delivery: { mode: 'webhook', url: `${h.base}/filtered` },
    });
    await h.postPr('wh-f1', 'opened');
    await h.postPr('wh-f2', 'closed');
    await waitFor('the filtered delivery', () => h.deliveriesTo('/filtered').length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.deliveriesTo('/filtered').map((r) => bodyOf(r).eventId)).toEqual(['wh-f2']);
    await call(alice, 'events/unsubscribe', { subscriptionId: sub.subscriptionId });
  });

  it('refreshes a subscription by subscribing again with its id: same secret, later expiry; unsubscribe ends it', async () => {
    const alice = await h.connect(ALICE);
    const first = await subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: `${h.base}/refresh` }, ttl: 120 });
    const again = await subscribe(alice, {
      name: 'prs',
      subscriptionId: first.subscriptionId,
      delivery: { mode: 'webhook', url: `${h.base}/refresh` },
      ttl: 3600,
    });
    expect(again.subscriptionId).toBe(first.subscriptionId);
    expect(again.secret).toBe(first.secret);
    expect(Date.parse(again.expiresAt)).toBeGreaterThan(Date.parse(first.expiresAt));
    // Another client cannot refresh or end it: it is answered as unknown.
    const bob = await h.connect(BOB);
    await expect(
      subscribe(bob, { name: 'ci-builds', subscriptionId: first.subscriptionId, delivery: { mode: 'webhook', url: `${h.base}/refresh` } }),
    ).rejects.toMatchObject({ code: -32023 });
    await expect(call(bob, 'events/unsubscribe', { subscriptionId: first.subscriptionId })).rejects.toMatchObject({ code: -32023 });

    await call(alice, 'events/unsubscribe', { subscriptionId: first.subscriptionId });
    await h.postPr('wh-r1', 'opened');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(h.deliveriesTo('/refresh')).toHaveLength(0);
    await expect(call(alice, 'events/unsubscribe', { subscriptionId: first.subscriptionId })).rejects.toMatchObject({ code: -32023 });
  });

  it('stops delivering once a subscription expired', async () => {
    const alice = await h.connect(ALICE);
    const sub = await subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: `${h.base}/expiring` }, ttl: 60 });
    await h.postPr('wh-e1', 'opened');
    await waitFor('the delivery before expiry', () => h.deliveriesTo('/expiring').length === 1);
    h.offsetMs = 61_000;
    try {
      await h.gw!.waitForLog(`MCP subscription ${sub.subscriptionId} of alice ended`);
      await h.postPr('wh-e2', 'opened');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(h.deliveriesTo('/expiring').map((r) => bodyOf(r).eventId)).toEqual(['wh-e1']);
      await expect(call(alice, 'events/unsubscribe', { subscriptionId: sub.subscriptionId })).rejects.toMatchObject({ code: -32023 });
    } finally {
      h.offsetMs = 0;
    }
  });

  it('answers the errors of the extension: unknown type, a type not granted, a bad URL, an unverified callback, another mode', async () => {
    const alice = await h.connect(ALICE);
    const bob = await h.connect(BOB);
    const webhook = { mode: 'webhook', url: `${h.base}/hook` };
    await expect(subscribe(alice, { name: 'nope', delivery: webhook })).rejects.toMatchObject({ code: -32023, data: { kind: 'event' } });
    // Bob was not given prs: refused as if it did not exist, and nothing is posted to the callback.
    const before = h.verifications.length;
    await expect(subscribe(bob, { name: 'prs', delivery: webhook })).rejects.toMatchObject({ code: -32023 });
    expect(h.verifications.length).toBe(before);
    await expect(subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: 'not a url' } })).rejects.toMatchObject({ code: -32602 });
    await expect(subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: 'http://example.com/hook' } })).rejects.toThrow(/must be https/);
    await expect(subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: 'https://10.0.0.1/hook' } })).rejects.toThrow(/internal address/);
    await expect(subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: `${h.base}/silent` } })).rejects.toThrow(
      /did not echo the verification challenge/,
    );
    await expect(subscribe(alice, { name: 'prs', delivery: { mode: 'push' } })).rejects.toMatchObject({ code: -32026, data: { feature: 'deliveryMode' } });
    await expect(subscribe(alice, { name: 'prs', delivery: webhook, arguments: { filter: { expression: 'true' } } })).rejects.toMatchObject({ code: -32602 });
    await expect(subscribe(alice, { name: 'prs', delivery: webhook, ttl: -1 })).rejects.toMatchObject({ code: -32602 });
    // The most a client may hold.
    const held: string[] = [];
    for (let i = 0; i < 5; i++) held.push((await subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: `${h.base}/many/${i}` } })).subscriptionId);
    await expect(subscribe(alice, { name: 'prs', delivery: webhook })).rejects.toMatchObject({ code: -32024 });
    for (const id of held) await call(alice, 'events/unsubscribe', { subscriptionId: id });
  });

  it('retries a failing callback with the retry policy, reports it, and never holds up ingest', async () => {
    const reports: Array<{ outcome: string; attempts: number; client: string }> = [];
    const off = h.gw!.gateway.on('mcp_webhook_delivery', (e) => reports.push({ outcome: e.outcome, attempts: e.attempts, client: e.client }));
    try {
      const alice = await h.connect(ALICE);
      const sub = await subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: `${h.base}/failing` } });
      const started = Date.now();
      await h.postPr('wh-x1', 'opened');
      expect(Date.now() - started).toBeLessThan(2000);
      await waitFor('the given-up report', () => reports.some((r) => r.outcome === 'failed'));
      expect(h.deliveriesTo('/failing')).toHaveLength(2); // retry.max_attempts
      expect(reports).toEqual([
        { outcome: 'retrying', attempts: 1, client: 'alice' },
        { outcome: 'failed', attempts: 2, client: 'alice' },
      ]);
      await h.gw!.waitForLog(`MCP subscription ${sub.subscriptionId} of alice: gave up on an event after 2 attempt(s)`);
      const metrics = await (await fetch(`${h.gw!.url}/metrics`)).text();
      expect(metrics).toMatch(/hookwise_mcp_webhook_deliveries_total\{client="alice",outcome="failed"\} 1/);
      expect(metrics).toMatch(/hookwise_mcp_webhook_deliveries_total\{client="alice",outcome="delivered"\} \d+/);
      await call(alice, 'events/unsubscribe', { subscriptionId: sub.subscriptionId });
    } finally {
      off();
    }
  });

  it('keeps a subscription across a restart on SQLite', async () => {
    let alice = await h.connect(ALICE);
    const sub = await subscribe(alice, { name: 'prs', delivery: { mode: 'webhook', url: `${h.base}/durable` } });
    await h.restart();
    alice = await h.connect(ALICE);
    await h.postPr('wh-d1', 'opened');
    await waitFor('the delivery after the restart', () => h.deliveriesTo('/durable').length === 1);
    const delivered = h.deliveriesTo('/durable')[0];
    expect(new Webhook(sub.secret).verify(delivered.body, delivered.headers as Record<string, string>)).toMatchObject({ eventId: 'wh-d1' });
    await call(alice, 'events/unsubscribe', { subscriptionId: sub.subscriptionId });
  });
});
