// A webhook subscription made with the `cursor` of the last event a client got is first sent what it missed since,
// oldest first, then the live events: over real HTTP with the official MCP SDK's client and a real receiver, on
// SQLite. The replay reads as an events/poll from that cursor would (the same filter, each event once); the
// answer's cursor is where the replay ended. A cursor older than what the store keeps (`maxAgeMs` here) says
// `truncated: true`, and a cursor this server never gave out is refused before anything is kept.
import { ALICE, WebhooksHarness, bodyOf, call, sleep, subscribe, waitFor } from './mcp-webhooks-harness';

const h = new WebhooksHarness('hookwise-mcp-replay-');
const webhook = (path: string) => ({ mode: 'webhook', url: `${h.base}${path}` });
const ids = (path: string) => h.deliveriesTo(path).map((r) => bodyOf(r).eventId);

beforeAll(() => h.setUp());
afterAll(() => h.tearDown());

describe('MCP Events webhook subscriptions with a cursor', () => {
  it('sends what was missed since the cursor (filtered, oldest first, once each), then the live events', async () => {
    const alice = await h.connect(ALICE);
    const first = await subscribe(alice, { name: 'prs', arguments: {}, delivery: webhook('/away'), ttl: 600 });
    await h.postPr('r-1', 'opened');
    await waitFor('the first delivery', () => ids('/away').length === 1);
    const last = bodyOf(h.deliveriesTo('/away')[0]).cursor;
    // The client goes away: its subscription ends, and events happen meanwhile.
    await call(alice, 'events/unsubscribe', { subscriptionId: first.subscriptionId });
    for (const [id, action] of [
      ['r-2', 'opened'],
      ['r-3', 'closed'],
      ['r-4', 'opened'],
    ])
      await h.postPr(id, action);

    // Back, on a new callback, with the cursor it had and a filter: only the missed events that pass it.
    const back = await subscribe(alice, {
      name: 'prs',
      arguments: { filter: { path: 'action', equals: 'opened' } },
      delivery: webhook('/back'),
      cursor: last,
      ttl: 600,
    });
    expect(back.truncated).toBe(false);
    await waitFor('the replayed events', () => ids('/back').length === 2);
    expect(ids('/back')).toEqual(['r-2', 'r-4']);
    // The answer's cursor is where the replay ended: a poll from it reads none of the replayed events again.
    const polled = await call<{ events: Array<{ eventId: string }> }>(alice, 'events/poll', { name: 'prs', cursor: back.cursor });
    expect(polled.events.map((e) => e.eventId)).toEqual([]);
    await h.postPr('r-5', 'opened');
    await waitFor('the live event', () => ids('/back').length === 3);
    await sleep(300);
    expect(ids('/back')).toEqual(['r-2', 'r-4', 'r-5']);
    await call(alice, 'events/unsubscribe', { subscriptionId: back.subscriptionId });
  });

  it('says truncated when the cursor is older than maxAgeMs allows, and refuses a cursor it never gave out', async () => {
    const alice = await h.connect(ALICE);
    const old = await subscribe(alice, { name: 'prs', arguments: {}, delivery: webhook('/old'), ttl: 600 });
    await call(alice, 'events/unsubscribe', { subscriptionId: old.subscriptionId });
    await sleep(1200);
    const late = await subscribe(alice, { name: 'prs', arguments: {}, delivery: webhook('/late'), cursor: old.cursor, maxAgeMs: 1000, ttl: 600 });
    expect(late.truncated).toBe(true);
    await call(alice, 'events/unsubscribe', { subscriptionId: late.subscriptionId });

    const before = (await h.gw!.gateway.features.mcpEvents.subscriptionListing()).length;
    await expect(subscribe(alice, { name: 'prs', arguments: {}, delivery: webhook('/forged'), cursor: 'hw1.not-a-cursor', ttl: 600 })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('cursor: not a cursor this server gave out'),
    });
    expect((await h.gw!.gateway.features.mcpEvents.subscriptionListing()).length).toBe(before);
    expect(h.verifications.filter((v) => v.path === '/forged')).toEqual([]);
  });
});
