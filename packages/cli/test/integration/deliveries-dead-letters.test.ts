// Dead letters through the CLI: deliveries list/show, retry --dead (the saved step runs again) and replay.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Gateway, agentDirOf, cli, makeHome, post, startGateway, stop } from '../deliveries-process';

describe('dead letters, retry and replay through the CLI (real binary)', () => {
  const gateways: Gateway[] = [];
  afterEach(async () => {
    for (const g of gateways.splice(0)) await stop(g, 'SIGKILL');
  });

  it('keeps dead letters, shows them, retries them and replays a delivery through the CLI', async () => {
    const home = makeHome();
    const gateway = await startGateway(home);
    gateways.push(gateway);
    expect((await post(gateway.url, 'doomed-1', { mode: 'fail' })).status).toBe(202);
    await gateway.waitFor(/kept as a dead letter/);

    const listed = await cli(home, ['deliveries', 'list', '--status', 'dead', '--json']);
    expect(listed).toMatchObject({ code: 0 });
    const dead = JSON.parse(listed.stdout) as Array<{ deliveryId: string; status: string; errors: Array<{ message: string }> }>;
    expect(dead.map((j) => [j.deliveryId, j.status])).toEqual([['doomed-1', 'dead']]);
    expect(dead[0].errors[0].message).toContain('agent refused');

    const shown = await cli(home, ['deliveries', 'show', 'doomed-1']);
    expect(shown).toMatchObject({ code: 0 });
    expect(shown.stdout).toContain('status: dead');
    expect(shown.stdout).toContain('agent refused');

    writeFileSync(join(agentDirOf(home), 'healed'), '');
    const retried = await cli(home, ['deliveries', 'retry', '--dead']);
    expect(retried.stdout).toContain('Put 1 dead letter(s) back in the queue: doomed-1');
    await gateway.waitFor(/delivered doomed-1 on route/);
    const done = JSON.parse((await cli(home, ['deliveries', 'show', 'doomed-1', '--json'])).stdout) as { status: string; answer: string };
    expect(done.status).toBe('done');
    expect(done.answer).toContain('answer for event');

    const replay = await cli(home, ['deliveries', 'replay', 'doomed-1', '--json']);
    expect(replay).toMatchObject({ code: 0 });
    const replayId = (JSON.parse(replay.stdout) as { job: { deliveryId: string } }).job.deliveryId;
    expect(replayId).toMatch(/^doomed-1-replay-\d+$/);
    await gateway.waitFor(new RegExp(`delivered ${replayId} on route`));
  }, 90_000); // six CLI processes one after the other: slow on a loaded machine
});
