// Two gateways on one real redis-server, both hosting the profiles acme and beta: a profile's event taken by one is
// run once, listed under that profile by the other, never under another profile, and its delivery id is a duplicate
// on the other gateway's URL of the same profile (each profile keeps its records under a Redis prefix of its own).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signGeneric, startRedisServer, startTestGateway, type RunningRedis, type TestGateway } from '@hookwise/testing';

const DEFAULT_SECRET = 'default-redis-secret-0123456789ab';
const ACME_SECRET = 'acme-redis-secret-0123456789abcd';
const BETA_SECRET = 'beta-redis-secret-0123456789abcd';

/** The scripted agent: each run adds its prompt as a line to runs.log beside the plugin, then answers. */
const AGENT_PLUGIN = `const { appendFileSync } = require('node:fs');
const { join } = require('node:path');
module.exports = {
  [Symbol.for('hookwise.plugin')]: true,
  meta: { name: 'counted-agent', version: '1.0.0', api: 2 },
  contributes: [
    {
      kind: 'agent',
      id: 'counted',
      create: () => ({
        run: async (task) => {
          appendFileSync(join(__dirname, 'runs.log'), task.prompt + '\\n');
          return { text: 'ran ' + task.prompt };
        },
      }),
    },
  ],
};
`;

const route = (secret: string, prompt: string) => ({ secret, deliver: 'log', prompt });

interface Delivery {
  profile: string;
  deliveryId: string;
  status: string;
}

async function post(gw: TestGateway, path: string, secret: string, deliveryId: string) {
  const body = JSON.stringify({ ref: deliveryId });
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signGeneric(secret, body), 'x-request-id': deliveryId },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function deliveries(gw: TestGateway, profile: string): Promise<Delivery[]> {
  const res = await fetch(`${gw.url}/api/deliveries?profile=${profile}&limit=100`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { deliveries: Delivery[] }).deliveries;
}

describe('two gateways on one redis-server hosting the same profiles', () => {
  let redis: RunningRedis;
  let dir: string;
  let one: TestGateway;
  let two: TestGateway;
  const runs = () => (existsSync(join(dir, 'runs.log')) ? readFileSync(join(dir, 'runs.log'), 'utf8').split('\n').filter(Boolean) : []);
  /** The log deliverer's lines for this delivery id, over both gateways. */
  const delivered = (deliveryId: string) =>
    [one, two].flatMap((gw) => gw.logs.filter((line) => line.delivery_id === deliveryId && /^response for route/.test(String(line.message))));

  beforeAll(async () => {
    redis = await startRedisServer();
    dir = mkdtempSync(join(tmpdir(), 'hookwise-profiles-redis-'));
    for (const [name, routes] of [
      ['acme', { ci: route(ACME_SECRET, 'acme ci {ref}') }],
      ['beta', { ci: route(BETA_SECRET, 'beta ci {ref}') }],
    ] as const) {
      mkdirSync(join(dir, 'profiles', name), { recursive: true });
      writeFileSync(join(dir, 'profiles', name, 'config.yaml'), JSON.stringify({ platforms: { webhook: { extra: { routes } } } }));
    }
    const options = {
      configDir: dir,
      config: {
        platforms: { webhook: { enabled: true, extra: { routes: { ci: route(DEFAULT_SECRET, 'default ci {ref}') } } } },
        agent: { runner: 'counted' },
        plugins: ['./counted-agent.js'],
        store: { backend: 'redis', url: redis.url, prefix: 'hw-profiles-two' },
        admin: { enabled: true },
      },
      files: { 'counted-agent.js': AGENT_PLUGIN },
      pollMs: 20,
    };
    one = await startTestGateway(options);
    two = await startTestGateway(options);
  }, 45_000);

  afterAll(async () => {
    await one?.stop();
    await two?.stop();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs acme's event once, lists it under acme on the other gateway only, and takes its id there as a duplicate", async () => {
    expect((await post(one, '/p/acme/webhooks/ci', ACME_SECRET, 'acme-1')).status).toBe(202);
    const until = Date.now() + 15_000;
    let listed: Delivery[] = [];
    while (!listed.some((job) => job.deliveryId === 'acme-1' && job.status === 'done')) {
      if (Date.now() > until) throw new Error(`acme-1 not done on gateway 2: ${JSON.stringify(listed)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      listed = await deliveries(two, 'acme');
    }
    expect(listed.map((job) => [job.profile, job.deliveryId])).toEqual([['acme', 'acme-1']]);
    expect(await deliveries(two, 'beta')).toEqual([]);
    expect(await deliveries(two, 'default')).toEqual([]);
    expect((await fetch(`${two.url}/api/deliveries/acme-1?profile=beta`)).status).toBe(404);

    const again = await post(two, '/p/acme/webhooks/ci', ACME_SECRET, 'acme-1');
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ status: 'duplicate', delivery_id: 'acme-1' });
    // Time for a second run, were there one.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(runs()).toEqual(['acme ci acme-1']);
    expect(delivered('acme-1')).toHaveLength(1);
    expect(delivered('acme-1')[0].profile).toBe('acme');
    expect((await deliveries(one, 'acme')).map((job) => job.deliveryId)).toEqual(['acme-1']);
  });
});
