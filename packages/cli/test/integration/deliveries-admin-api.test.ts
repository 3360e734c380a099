// `hookwise deliveries` against a running gateway's admin API (the real binary, a real gateway): a memory store's
// jobs are listed and shown, replay and retry run at once, the token is sent; the store again once it stops.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeRunFile } from '@hookwise/gateway';
import type { TestGateway } from '@hookwise/testing';
import { ADMIN_TOKEN, send, settled, startObserved } from '../../../server/test/integration/observed-gateway';
import { runCli } from '../cli-process';

jest.setTimeout(60_000);

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

/** What `hookwise gateway run` writes while it serves; the harness starts the server without it. */
function announce(gateway: TestGateway): void {
  writeRunFile(gateway.configDir, { pid: process.pid, url: gateway.url, host: '127.0.0.1', port: gateway.port, started_at: new Date().toISOString() });
}

const push = (id: string) => send(gw!, 'ci', { event_type: 'push', ref: 'main', repository: { name: 'hookwise' } }, { 'x-request-id': id });

describe('hookwise deliveries through the admin API', () => {
  it('lists and shows the jobs of a memory store, and replays one by a prefix of its id, with the admin token', async () => {
    gw = await startObserved({ admin: { enabled: true, token: ADMIN_TOKEN } });
    announce(gw);
    await push('cli-api-1');
    await settled(gw, 1);
    const home = gw.configDir;

    const list = await runCli(['deliveries', 'list', '--json'], home);
    expect(list.code).toBe(0);
    const jobs = JSON.parse(list.stdout) as Array<Record<string, unknown>>;
    expect(jobs).toEqual([expect.objectContaining({ deliveryId: 'cli-api-1', status: 'done', answer: 'Answer to: Build main of hookwise' })]);

    const show = await runCli(['deliveries', 'show', 'cli-api-1'], home);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('Answer to: Build main of hookwise');

    const replay = await runCli(['deliveries', 'replay', 'cli-api'], home);
    expect(replay.stderr).toBe('');
    expect(replay.stdout).toMatch(/^Replaying cli-api-1 on route 'ci' as cli-api-1-replay-\d+/);
    await settled(gw, 2);
    expect((await gw.gateway.store.jobs.list()).map((j) => j.status)).toEqual(['done', 'done']);
    expect(gw.logText()).toContain('(admin API)');
  });

  it('retries dead letters through the API on loopback without a token (the CLI sends the CSRF header)', async () => {
    gw = await startObserved({ admin: { enabled: true } });
    announce(gw);
    await push('fail2-cli');
    await settled(gw, 1);
    const retry = await runCli(['deliveries', 'retry', '--dead'], gw.configDir);
    expect(retry.stdout).toContain('Put 1 dead letter(s) back in the queue: fail2-cli');
    await settled(gw, 1);
    expect((await gw.gateway.store.jobs.findByDeliveryId('fail2-cli'))?.status).toBe('done');
  });

  it('retries one ended job by its id: a dead letter at its failed step, a done job as a new run', async () => {
    gw = await startObserved({ admin: { enabled: true } });
    announce(gw);
    await push('fail3-cli');
    await push('cli-api-3');
    await settled(gw, 2);
    expect((await gw.gateway.store.jobs.findByDeliveryId('fail3-cli'))?.status).toBe('dead');

    const dead = await runCli(['deliveries', 'retry', 'fail3-cli'], gw.configDir);
    expect(dead.stderr).toBe('');
    expect(dead.stdout).toContain("Put dead letter fail3-cli on route 'ci' back in the queue");
    await settled(gw, 2);
    expect((await gw.gateway.store.jobs.findByDeliveryId('fail3-cli'))?.status).toBe('done');

    const done = await runCli(['deliveries', 'retry', 'cli-api-3', '--json'], gw.configDir);
    expect(done.code).toBe(0);
    const result = JSON.parse(done.stdout) as { retried: string[]; replayed: { deliveryId: string } };
    expect(result.retried).toEqual(['cli-api-3']);
    expect(result.replayed.deliveryId).toMatch(/^cli-api-3-replay-\d+$/);
    await settled(gw, 3);

    const neither = await runCli(['deliveries', 'retry'], gw.configDir);
    expect(neither.code).not.toBe(0);
    expect(neither.stderr).toContain('name the job to retry');
  });

  it('reads the store again once the gateway is gone (a memory store then has nothing to show)', async () => {
    // A config dir of the test's own: the harness removes the ones it makes.
    const home = mkdtempSync(join(tmpdir(), 'hookwise-cli-api-'));
    gw = await startObserved({ admin: { enabled: true } }, { configDir: home });
    announce(gw);
    await gw.stop();
    gw = undefined;
    const list = await runCli(['deliveries', 'list'], home);
    expect(list.code).toBe(1);
    expect(list.stderr).toContain('store.backend is memory');
    rmSync(home, { recursive: true, force: true });
  });

  it('says so when the running gateway refuses the token in config.yaml', async () => {
    gw = await startObserved({ admin: { enabled: true, token: ADMIN_TOKEN } });
    announce(gw);
    // The gateway keeps the token it started with; config.yaml now says another.
    const file = join(gw.configDir, 'config.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(ADMIN_TOKEN, 'another-admin-token-0123456789'));
    const list = await runCli(['deliveries', 'list'], gw.configDir);
    expect(list.code).toBe(1);
    expect(list.stderr).toMatch(/admin API \(http:\/\/127\.0\.0\.1:\d+\) answered 401: the admin token was not accepted/);
    expect(list.stderr).not.toContain('another-admin-token-0123456789');
  });
});
