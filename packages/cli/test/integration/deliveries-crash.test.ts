// kill -9 the real gateway before delivery, start it again: every accepted event is delivered once.
import { type Gateway, deliveredCount, makeHome, post, startGateway, stop } from '../deliveries-process';

describe('deliveries survive a crash (real binary, SQLite store)', () => {
  const gateways: Gateway[] = [];
  afterEach(async () => {
    for (const g of gateways.splice(0)) await stop(g, 'SIGKILL');
  });

  it('delivers every accepted event exactly once after kill -9 before delivery and a restart', async () => {
    const home = makeHome();
    const first = await startGateway(home);
    gateways.push(first);
    const ids = ['crash-1', 'crash-2', 'crash-3', 'crash-4', 'crash-5', 'crash-6', 'crash-7'];
    for (const id of ids) expect((await post(first.url, id, { id })).status).toBe(202);
    await stop(first, 'SIGKILL'); // the agent runs take 1.5 s: nothing was delivered yet
    for (const id of ids) expect(deliveredCount(first.output(), id)).toBe(0);

    const second = await startGateway(home);
    gateways.push(second);
    for (const id of ids) await second.waitFor(new RegExp(`delivered ${id} on route`), 20_000);
    for (const id of ids) expect(deliveredCount(second.output(), id)).toBe(1);
    // A sender retrying an accepted event after the crash is still recognised as a duplicate.
    expect(await (await post(second.url, 'crash-1', { id: 'crash-1' })).json()).toEqual({ status: 'duplicate', delivery_id: 'crash-1' });
  }, 60_000); // two gateway starts and a 5 s heartbeat takeover: slow on a loaded machine
});
