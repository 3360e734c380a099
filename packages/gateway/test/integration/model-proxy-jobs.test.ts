// The model proxy on the job path of a real gateway: a `command` agent (a small node script) that calls the model
// through the URL and token its environment holds, against a scripted Anthropic stand-in. The run's tokens and
// dollars are stored with the job (read back from the store, as `deliveries show --json` does); a run past
// usd_per_run is refused at its next call and its job ends budget_exceeded without a retry; with
// `per: "{sender.login}"` each sender has a day of its own.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from '@hookwise/core';
import { startTestGateway, testProcessEnv, type TestGateway } from '@hookwise/testing';
import { startModelStandIn, type StandIn } from './model-stand-ins';

const REAL_KEY = 'sk-ant-gateway-only-key-0123456789';

/** Makes as many Anthropic calls as the prompt's number says; a refused call ends it with code 3, as a CLI would. */
export const MODEL_CLIENT = `
const input = require('fs').readFileSync(0, 'utf8');
const calls = Number((/(\\d+)/.exec(input) || [0, 1])[1]);
(async () => {
  const said = [];
  for (let i = 0; i < calls; i++) {
    const res = await fetch(process.env.ANTHROPIC_BASE_URL + '/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': process.env.ANTHROPIC_API_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'call ' + i }] }),
    });
    const text = await res.text();
    if (res.status !== 200) { process.stderr.write('API Error: ' + res.status + ' ' + text); process.exit(3); }
    said.push(i);
  }
  process.stdout.write('made ' + said.length + ' calls');
})();
`;

let standIn: StandIn;
let tools: string;
let gw: TestGateway | undefined;

beforeEach(async () => {
  standIn = await startModelStandIn();
  tools = mkdtempSync(join(tmpdir(), 'hw-model-client-'));
  writeFileSync(join(tools, 'model-client.js'), MODEL_CLIENT);
});

afterEach(async () => {
  await gw?.stop();
  gw = undefined;
  await standIn.close();
  rmSync(tools, { recursive: true, force: true });
});

async function start(route: Record<string, unknown>): Promise<TestGateway> {
  return startTestGateway({
    config: {
      platforms: { webhook: { enabled: true, extra: { routes: { review: { secret: 'INSECURE_NO_AUTH', prompt: 'calls: {calls}', ...route } } } } },
      agent: {
        runner: 'command',
        command: [process.execPath, join(tools, 'model-client.js')],
        sandbox: { mode: 'off' },
        model_proxy: { enabled: true, providers: { anthropic: { base_url: standIn.url, api_key_env: 'GATEWAY_ANTHROPIC_KEY' } } },
      },
      retry: { max_attempts: 3, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
      store: { backend: 'memory' },
    },
    env: testProcessEnv(undefined, { GATEWAY_ANTHROPIC_KEY: REAL_KEY }),
    pollMs: 50,
  });
}

async function send(id: string, payload: Record<string, unknown>): Promise<void> {
  const res = await gw!.post('review', JSON.stringify(payload), { 'content-type': 'application/json', 'x-request-id': id });
  expect(res.status).toBe(202);
}

/** The job as the store keeps it (what `deliveries show --json` prints), once it is done, dead, or waiting with a note. */
async function settled(id: string): Promise<Job> {
  const end = Date.now() + 15_000;
  for (;;) {
    const [job] = (await gw!.gateway.store.jobs.list({ limit: 50 })).filter((j) => j.deliveryId === id);
    if (job && (job.status === 'done' || job.status === 'dead' || (job.status === 'pending' && job.note))) return job;
    if (Date.now() > end) throw new Error(`${id} did not settle: ${JSON.stringify(job)}\n${gw!.logText()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const CALL_COST = (1000 * 3 + 2000 * 0.3 + 400 * 3.75 + 500 * 15) / 1e6;

describe('the model proxy on the job path', () => {
  it("stores the run's tokens and dollars with the job; the provider got the gateway's key, never the run's token", async () => {
    gw = await start({});
    await send('spend-1', { calls: 2 });
    const job = await settled('spend-1');
    expect(job).toMatchObject({ status: 'done', answer: 'made 2 calls' });
    expect(job.usage).toMatchObject({ inputTokens: 2 * 3400, outputTokens: 1000, cachedInputTokens: 4000, cacheWriteTokens: 800, modelCalls: 2 });
    expect(job.usage!.costUsd).toBeCloseTo(2 * CALL_COST, 6);
    expect(standIn.received).toHaveLength(2);
    for (const got of standIn.received) expect(got.headers['x-api-key']).toBe(REAL_KEY);
    expect(gw.gateway.features.modelProxy.openCount).toBe(0);
  });

  it('refuses the call after the one that passed usd_per_run; the job ends budget_exceeded and is not retried', async () => {
    gw = await start({ budget: { usd_per_run: 0.01 } });
    await send('capped-1', { calls: 5 });
    const job = await settled('capped-1');
    expect(job).toMatchObject({ status: 'done', outcome: 'budget_exceeded', attempts: 1 });
    expect(job.note).toBe("route budget usd_per_run ($0.01) reached: the model proxy refused the run's further model calls; not retried");
    expect(job.errors ?? []).toHaveLength(0);
    // 0.0126 per call: the first call passes the cap, the second is refused before it reaches the provider.
    expect(standIn.received).toHaveLength(1);
    expect(job.usage).toMatchObject({ modelCalls: 1, costUsd: expect.closeTo(CALL_COST, 6) });
    await new Promise((r) => setTimeout(r, 300));
    expect(standIn.received).toHaveLength(1);
  });

  it('keeps a day of usd_per_day per sender with per: "{sender.login}": a spent sender waits, another still runs', async () => {
    gw = await start({ budget: { usd_per_day: 0.02, per: '{sender.login}' } });
    // alice: two calls, 0.0252: her day is spent after this run.
    await send('alice-1', { calls: 2, sender: { login: 'alice' } });
    expect(await settled('alice-1')).toMatchObject({ status: 'done', answer: 'made 2 calls' });
    await send('alice-2', { calls: 1, sender: { login: 'alice' } });
    const waiting = await settled('alice-2');
    expect(waiting.status).toBe('pending');
    expect(waiting.note).toMatch(/^route budget usd_per_day \(\$0\.02\) spent; waiting until /);
    await send('bob-1', { calls: 1, sender: { login: 'bob' } });
    expect(await settled('bob-1')).toMatchObject({ status: 'done', answer: 'made 1 calls' });
    expect(standIn.received).toHaveLength(3);
  });
});

/** Inside the sandbox: reports which variables hold the real key (none may) and makes one call through the proxy. */
const SANDBOXED_CLIENT = `
const http = require('node:http');
const leaked = Object.entries(process.env).filter(([, v]) => v && v.includes('${REAL_KEY}')).map(([k]) => k);
// As the CLIs do: a plain http URL goes through http_proxy (the egress proxy), in absolute form.
const proxy = new URL(process.env.http_proxy || process.env.HTTP_PROXY);
const target = process.env.HOOKWISE_MODEL_PROXY_URL + '/v1/messages';
const body = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
const req = http.request({ host: proxy.hostname, port: proxy.port, method: 'POST', path: target, headers: {
  host: new URL(target).host, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body),
  'x-api-key': process.env.ANTHROPIC_API_KEY, 'anthropic-version': '2023-06-01' } }, (res) => {
  let text = '';
  res.on('data', (c) => (text += c));
  res.on('end', () => {
    const answer = JSON.parse(text);
    process.stdout.write(JSON.stringify({ leaked, status: res.statusCode, text: answer.content && answer.content[0].text }));
  });
});
req.end(body);
`;

describe('a sandboxed run (mode required) with the model proxy', () => {
  it('holds no model key in its environment and reaches the model only through the proxy', async () => {
    const { probeSandbox } = await import('@hookwise/sandbox');
    const probe = await probeSandbox();
    if (!probe.available) {
      console.warn(`skipped: bubblewrap cannot run here (${probe.reason})`);
      return;
    }
    writeFileSync(join(tools, 'sandboxed-client.js'), SANDBOXED_CLIENT);
    gw = await startTestGateway({
      config: {
        platforms: { webhook: { enabled: true, extra: { routes: { review: { secret: 'INSECURE_NO_AUTH' } } } } },
        agent: {
          runner: 'command',
          command: [process.execPath, join(tools, 'sandboxed-client.js')],
          // An operator who passes the keys on anyway: the proxy takes them out of the run.
          env: ['GATEWAY_ANTHROPIC_KEY', 'ANTHROPIC_API_KEY'],
          sandbox: { mode: 'required', read_only: [tools] },
          model_proxy: { enabled: true, providers: { anthropic: { base_url: standIn.url, api_key_env: 'GATEWAY_ANTHROPIC_KEY' } } },
        },
        store: { backend: 'memory' },
      },
      env: testProcessEnv(undefined, { GATEWAY_ANTHROPIC_KEY: REAL_KEY, ANTHROPIC_API_KEY: REAL_KEY }),
      pollMs: 50,
    });
    await send('sandboxed-1', {});
    const job = await settled('sandboxed-1');
    expect(job.status).toBe('done');
    expect(job.usage?.sandbox).toMatchObject({ sandboxed: true, mode: 'required' });
    const said = JSON.parse(job.answer!) as { leaked: string[]; status: number; text: string };
    expect(said).toEqual({ leaked: [], status: 200, text: 'Hello from the stand-in' });
    expect(standIn.received).toHaveLength(1);
    expect(standIn.received[0].headers['x-api-key']).toBe(REAL_KEY);
    expect(job.usage).toMatchObject({ modelCalls: 1, costUsd: expect.closeTo(CALL_COST, 6) });
  });
});

// agent.model_proxy.enabled unset: on for the command runner's runs whenever the gateway holds a provider key;
// false: off, and startup says that the key enters the run's sandbox.
describe('the model proxy by default', () => {
  it('keeps the key out of a sandboxed command run when enabled is unset, the upstream from ANTHROPIC_BASE_URL', async () => {
    const { probeSandbox } = await import('@hookwise/sandbox');
    const probe = await probeSandbox();
    if (!probe.available) {
      console.warn(`skipped: bubblewrap cannot run here (${probe.reason})`);
      return;
    }
    writeFileSync(join(tools, 'sandboxed-client.js'), SANDBOXED_CLIENT);
    gw = await startTestGateway({
      config: {
        platforms: { webhook: { enabled: true, extra: { routes: { review: { secret: 'INSECURE_NO_AUTH' } } } } },
        agent: {
          runner: 'command',
          command: [process.execPath, join(tools, 'sandboxed-client.js')],
          env: ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'],
          sandbox: { mode: 'required', read_only: [tools] },
        },
        store: { backend: 'memory' },
      },
      env: testProcessEnv(undefined, { ANTHROPIC_API_KEY: REAL_KEY, ANTHROPIC_BASE_URL: standIn.url }),
      pollMs: 50,
    });
    await send('default-1', {});
    const job = await settled('default-1');
    expect(job.status).toBe('done');
    expect(JSON.parse(job.answer!)).toEqual({ leaked: [], status: 200, text: 'Hello from the stand-in' });
    expect(standIn.received[0].headers['x-api-key']).toBe(REAL_KEY);
    expect(job.usage).toMatchObject({ modelCalls: 1, sandbox: { sandboxed: true } });
    expect(gw.logText()).toContain("model proxy: the agent CLIs of route 'review' get the proxy's URL and a per-run token, never ANTHROPIC_API_KEY");
    expect(gw.logText()).not.toContain('enters the run');
  });

  it('passes the key itself with enabled: false, and warns at startup that it enters the sandbox', async () => {
    gw = await startTestGateway({
      config: {
        platforms: { webhook: { enabled: true, extra: { routes: { review: { secret: 'INSECURE_NO_AUTH' } } } } },
        agent: {
          runner: 'command',
          command: [process.execPath, '-e', `process.stdout.write(String(process.env.ANTHROPIC_API_KEY === '${REAL_KEY}'))`],
          env: ['ANTHROPIC_API_KEY'],
          sandbox: { mode: 'off' },
          model_proxy: { enabled: false },
        },
        store: { backend: 'memory' },
      },
      env: testProcessEnv(undefined, { ANTHROPIC_API_KEY: REAL_KEY }),
      pollMs: 50,
    });
    expect(gw.logText()).toMatch(
      /route 'review': agent\.model_proxy\.enabled is false, so its agent CLI gets ANTHROPIC_API_KEY .*the key enters the run's sandbox/,
    );
    await send('off-1', {});
    const job = await settled('off-1');
    expect(job.answer).toBe('true');
    expect(job.usage?.modelCalls).toBeUndefined();
  });

  it('leaves the openai and anthropic runners as they were: no proxy, no warning', async () => {
    gw = await startTestGateway({
      config: {
        platforms: { webhook: { enabled: true, extra: { routes: { review: { secret: 'INSECURE_NO_AUTH' } } } } },
        agent: { runner: 'anthropic', model: 'claude-sonnet-4-5', base_url: standIn.url },
        store: { backend: 'memory' },
      },
      env: testProcessEnv(undefined, { ANTHROPIC_API_KEY: REAL_KEY }),
      pollMs: 50,
    });
    expect(gw.gateway.features.modelProxy.serves('anthropic')).toBe(false);
    expect(gw.gateway.features.modelProxy.serves('command')).toBe(true);
    expect(gw.logText()).not.toMatch(/model proxy: the agent CLIs|enters the run's sandbox/);
  });
});
