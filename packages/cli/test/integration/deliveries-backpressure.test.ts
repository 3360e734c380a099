// Backpressure over HTTP: above store.max_pending new events get 503 + Retry-After and nothing is remembered.
import { type Gateway, makeHome, post, startGateway, stop } from '../deliveries-process';

describe('503 backpressure above store.max_pending (real binary)', () => {
  const gateways: Gateway[] = [];
  afterEach(async () => {
    for (const g of gateways.splice(0)) await stop(g, 'SIGKILL');
  });

  it('answers 503 with Retry-After above store.max_pending, and accepts again once the queue drains', async () => {
    const home = makeHome('store:\n  max_pending: 2\n');
    const gateway = await startGateway(home);
    gateways.push(gateway);
    expect((await post(gateway.url, 'bp-1', { mode: 'slow' })).status).toBe(202);
    expect((await post(gateway.url, 'bp-2', { mode: 'slow' })).status).toBe(202);
    const refused = await post(gateway.url, 'bp-3', { mode: 'slow' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    await gateway.waitFor(/delivered bp-2 on route/);
    await gateway.waitFor(/delivered bp-1 on route/);
    // The refused id was not remembered: the sender's retry is accepted, not taken for a duplicate.
    expect((await post(gateway.url, 'bp-3', { mode: 'x' })).status).toBe(202);
  });
});
