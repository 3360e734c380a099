// Two real `hookwise gateway run` processes on one real redis-server act as one (issue 8, "Done means"):
// the per-route rate limit counts across both, a duplicate sent to both runs once, and a job whose gateway
// was killed with SIGKILL mid-run is finished by the other.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedisServer, type RunningRedis } from '@hookwise/testing';
import IORedis from 'ioredis';
import {
  agentDirOf,
  cli,
  postEvent as post,
  requireBuiltCli,
  sharedRedisConfig,
  startGatewayProcess as startGateway,
  stopGatewayProcess as stopGateway,
  until,
  writeStandInAgent,
  type GatewayProcess as Gateway,
} from '../gateway-processes';

requireBuiltCli();

/**
 * The stand-in agent: records each run as `start <delivery id> <gateway name>` in RUNS_FILE, then answers. On the
 * "slow" route its first run takes 5 s (time to kill its gateway); a rerun answers at once.
 */
const AGENT = `
const fs = require('node:fs');
let input = '';
process.stdin.on('data', (c) => (input += c)).on('end', () => {
  const id = (/"id":\\s*"([^"]+)"/.exec(input) || [])[1] || 'unknown';
  const before = fs.existsSync(process.env.RUNS_FILE) ? fs.readFileSync(process.env.RUNS_FILE, 'utf8') : '';
  const rerun = before.split('\\n').some((l) => l.startsWith('start ' + id + ' '));
  fs.appendFileSync(process.env.RUNS_FILE, 'start ' + id + ' ' + process.env.GATEWAY_NAME + '\\n');
  const pause = input.includes('"slow"') && !rerun ? 5000 : 0;
  setTimeout(() => process.stdout.write('answer for ' + id), pause);
});
`;

const delivered = (output: string, id: string): number => output.split('\n').filter((l) => l.includes(`delivered ${id} on route`)).length;

describe('two gateway processes on one redis-server (real binary)', () => {
  let redis: RunningRedis;
  let home: string;
  let runsFile: string;
  let a: Gateway;
  let b: Gateway;
  const runs = (id: string): Array<{ gateway: string }> =>
    (existsSync(runsFile) ? readFileSync(runsFile, 'utf8') : '')
      .split('\n')
      .filter((l) => l.startsWith(`start ${id} `))
      .map((l) => ({ gateway: l.split(' ')[2]! }));
  const bothOutputs = () => `--- gateway A:\n${a?.output()}\n--- gateway B:\n${b?.output()}`;

  beforeAll(async () => {
    redis = await startRedisServer();
    home = mkdtempSync(join(tmpdir(), 'hookwise-two-gateways-'));
    runsFile = join(agentDirOf(home), 'runs.log');
    writeStandInAgent(home, AGENT);
    const routes = ['limited', 'dedupe', 'slow'].map((name) => `        ${name}: { secret: INSECURE_NO_AUTH, prompt: "event {__raw__}" }`).join('\n');
    // Both gateways share this config dir; `port: 0` gives each its own port. The default 30 s lease: the
    // store's own 5 s lock, not the lease, decides that a killed gateway's job is taken over 5-7 s after its death.
    writeFileSync(
      join(home, 'config.yaml'),
      sharedRedisConfig({
        home,
        runsFile,
        redisUrl: redis.url,
        webhook: `      rate_limit: 4\n      routes:\n${routes}`,
        more: 'retry: { max_attempts: 3, base_delay_seconds: 0.2 }\n',
      }),
    );
    [a, b] = await Promise.all([startGateway(home, 'a'), startGateway(home, 'b')]);
  }, 45_000);

  afterAll(async () => {
    // The killed gateway's agent needs no ending here: sandboxed, it dies with its gateway (bubblewrap's
    // --die-with-parent), and unsandboxed it ends on its own within its 5 s pause.
    await Promise.all([a, b].filter(Boolean).map((g) => stopGateway(g, 'SIGTERM')));
    await redis?.stop();
  });

  it('counts the per-route rate limit across both gateways', async () => {
    // The window is a fixed minute on Redis's clock: start the 6 requests well inside one window.
    const client = new IORedis(redis.url);
    try {
      const [seconds, micros] = (await client.time()) as [number | string, number | string];
      const intoWindow = (Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)) % 60_000;
      if (intoWindow > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoWindow + 200));
    } finally {
      client.disconnect();
    }
    const accepted = [];
    for (const [i, gateway] of [a, b, a, b].entries()) accepted.push(await post(gateway, 'limited', `limited-${i}`, { id: `limited-${i}` }));
    expect(accepted.map((r) => r.status)).toEqual([202, 202, 202, 202]);
    for (const gateway of [a, b]) {
      const refused = await post(gateway, 'limited', `limited-over-${gateway === a ? 'a' : 'b'}`, { id: 'over' });
      expect(refused.status).toBe(429);
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    // Another route has its own window.
    expect((await post(b, 'slow', 'other-route', { id: 'other-route' })).status).toBe(202);
    await until(
      () => [0, 1, 2, 3].every((i) => delivered(a.output() + b.output(), `limited-${i}`) === 1),
      () => `the 4 accepted events delivered\n${bothOutputs()}`,
    );
  }, 45_000);

  it('runs a delivery id sent to both gateways once', async () => {
    // Four requests on this route, duplicates included (each counts against the limit of 4).
    const answers = await Promise.all([post(a, 'dedupe', 'dup-1', { id: 'dup-1' }), post(b, 'dedupe', 'dup-1', { id: 'dup-1' })]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 202]);
    expect(answers.find((r) => r.status === 200)!.body).toEqual({ status: 'duplicate', delivery_id: 'dup-1' });
    // Sent again later, to each of them: still a duplicate.
    for (const gateway of [a, b]) expect((await post(gateway, 'dedupe', 'dup-1', { id: 'dup-1' })).body).toEqual({ status: 'duplicate', delivery_id: 'dup-1' });
    await until(
      () => delivered(a.output() + b.output(), 'dup-1') === 1,
      () => `dup-1 delivered\n${bothOutputs()}`,
    );
    expect(runs('dup-1')).toHaveLength(1);
    const shown = await cli(home, ['deliveries', 'show', 'dup-1', '--json']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ deliveryId: 'dup-1', route: 'dedupe', status: 'done' });
  }, 30_000);

  it('finishes on the other gateway a job whose gateway was killed with SIGKILL mid-run', async () => {
    expect((await post(a, 'slow', 'slow-1', { id: 'slow-1', mode: 'slow' })).status).toBe(202);
    // Whichever gateway leased it is running the 5 s agent now: kill that one.
    await until(
      () => runs('slow-1').length === 1,
      () => `the slow agent to start\n${bothOutputs()}`,
    );
    const [first] = runs('slow-1');
    const [victim, survivor] = first.gateway === a.name ? [a, b] : [b, a];
    expect(victim.name).toBe(first.gateway);
    await stopGateway(victim, 'SIGKILL');

    // The survivor takes the job over once the dead gateway's 5 s lock has lapsed and runs the agent again.
    // (The 12 s limit would fail with the old takeover, which waited for the 30 s lease.)
    await until(
      () => delivered(survivor.output(), 'slow-1') === 1,
      () => `slow-1 delivered by the survivor\n${bothOutputs()}`,
      12_000,
    );
    expect(delivered(victim.output(), 'slow-1')).toBe(0);
    expect(runs('slow-1').map((r) => r.gateway)).toEqual([victim.name, survivor.name]);
    const shown = await cli(home, ['deliveries', 'show', 'slow-1', '--json']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ deliveryId: 'slow-1', route: 'slow', status: 'done', attempts: 1, answer: 'answer for slow-1' });
    // Delivered once, and the duplicate from the earlier test still ran once.
    expect(delivered(survivor.output(), 'slow-1')).toBe(1);
    expect(runs('dup-1')).toHaveLength(1);
  }, 30_000);
});
