// The model proxy over real HTTP against scripted provider stand-ins (model-stand-ins.ts): each API streamed and not,
// the real key added and the run's token never passed on, tokens and dollars read from the wire, requests without a
// valid run token refused, the provider's refusal of the key not passed back, and a run past its cap refused.
import type { AgentSandbox, Job } from '@hookwise/core';
import { ModelProxy } from '../../src/model-proxy/model-proxy-hook';
import type { ProxySession } from '../../src/model-proxy/proxy-session';
import { createLogger } from '../../src/observe/logger';
import { MemoryWindowCounters } from '../../src/stores/memory-counters';
import type { Route } from '../../src/routes/routes';
import { ANTHROPIC_USAGE, OPENAI_USAGE, startModelStandIn, type StandIn } from './model-stand-ins';

const ANTHROPIC_KEY = 'sk-ant-real-key-0123456789abcdef';
const OPENAI_KEY = 'sk-openai-real-key-0123456789abcdef';

let standIn: StandIn;
let proxy: ModelProxy;
let session: ProxySession;

function route(budget?: Route['budget']): Route {
  return { name: 'review', budget } as Route;
}
const job = { id: 'job-1', deliveryId: 'd-1', payload: { sender: { login: 'alice' } } } as unknown as Job;

async function start(budget?: Route['budget'], status?: number): Promise<void> {
  standIn = await startModelStandIn({ status });
  proxy = new ModelProxy({
    config: {
      enabled: true,
      providers: {
        anthropic: { base_url: standIn.url, api_key_env: 'TEST_ANTHROPIC_KEY' },
        openai: { base_url: `${standIn.url}/v1`, api_key_env: 'TEST_OPENAI_KEY' },
      },
    },
    env: { TEST_ANTHROPIC_KEY: ANTHROPIC_KEY, TEST_OPENAI_KEY: OPENAI_KEY },
    logger: createLogger({ silent: true }),
    budgets: { counters: new MemoryWindowCounters(), global: undefined },
  });
  session = await proxy.open(route(budget), job);
}

afterEach(async () => {
  await proxy?.close();
  await standIn?.close();
});

const env = () => session.env();

async function anthropic(body: Record<string, unknown>, token = env().ANTHROPIC_API_KEY): Promise<Response> {
  return fetch(`${env().ANTHROPIC_BASE_URL}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': token, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
}

async function openai(path: 'chat/completions' | 'responses', body: Record<string, unknown>, token = env().OPENAI_API_KEY): Promise<Response> {
  return fetch(`${env().OPENAI_BASE_URL}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ model: 'gpt-4o-mini', ...body }),
  });
}

/** Cost of the stand-ins' usage at the built-in prices. */
const SONNET_COST = (1000 * 3 + 2000 * 0.3 + 400 * 3.75 + 500 * 15) / 1e6;
const MINI_COST = ((1200 - 1000) * 0.15 + 1000 * 0.075 + 300 * 0.6) / 1e6;

describe('the model proxy', () => {
  it('streams an Anthropic Messages answer through, adds the real key, never passes the run token, and reads its usage and cost', async () => {
    await start();
    const res = await anthropic({ stream: true });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('event: message_start');
    expect(text).toContain('"text":"the stand-in"');
    const [got] = standIn.received;
    expect(got.path).toBe('/v1/messages');
    expect(got.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(got.headers['anthropic-version']).toBe('2023-06-01');
    expect(JSON.stringify(got.headers)).not.toContain(env().ANTHROPIC_API_KEY);
    expect(JSON.stringify(got.body)).not.toContain(env().ANTHROPIC_API_KEY);
    expect(session.usage(undefined)).toEqual({
      inputTokens: ANTHROPIC_USAGE.input_tokens + ANTHROPIC_USAGE.cache_read_input_tokens + ANTHROPIC_USAGE.cache_creation_input_tokens,
      outputTokens: ANTHROPIC_USAGE.output_tokens,
      cachedInputTokens: ANTHROPIC_USAGE.cache_read_input_tokens,
      cacheWriteTokens: ANTHROPIC_USAGE.cache_creation_input_tokens,
      modelCalls: 1,
      costUsd: Math.round(SONNET_COST * 1e6) / 1e6,
    });
  });

  it('passes a non-streamed Anthropic answer through unchanged and counts it', async () => {
    await start();
    const res = await anthropic({});
    expect(res.status).toBe(200);
    expect(((await res.json()) as { content: Array<{ text: string }> }).content[0].text).toBe('Hello from the stand-in');
    expect(session.usage(undefined)).toMatchObject({ outputTokens: 500, cachedInputTokens: 2000, modelCalls: 1 });
  });

  it('asks a streamed Chat Completion for its usage, adds the Bearer key, and reads the cached tokens', async () => {
    await start();
    const res = await openai('chat/completions', { stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('chat.completion.chunk');
    expect(text).toContain('data: [DONE]');
    const [got] = standIn.received;
    expect(got.path).toBe('/v1/chat/completions');
    expect(got.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(got.body.stream_options).toEqual({ include_usage: true });
    expect(session.usage(undefined)).toEqual({
      inputTokens: OPENAI_USAGE.prompt,
      outputTokens: OPENAI_USAGE.completion,
      cachedInputTokens: OPENAI_USAGE.cached,
      cacheWriteTokens: 0,
      modelCalls: 1,
      costUsd: Math.round(MINI_COST * 1e6) / 1e6,
    });
  });

  it('reads a streamed Responses answer from response.completed, and a non-streamed one from its body', async () => {
    await start();
    const streamed = await openai('responses', { model: 'gpt-5', stream: true, input: 'hi' });
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toContain('event: response.completed');
    await (await openai('responses', { model: 'gpt-5', input: 'hi' })).text();
    expect(standIn.received.map((r) => r.path)).toEqual(['/v1/responses', '/v1/responses']);
    const usage = session.usage(undefined)!;
    expect(usage).toMatchObject({ inputTokens: 2 * OPENAI_USAGE.prompt, outputTokens: 2 * OPENAI_USAGE.completion, cachedInputTokens: 2000, modelCalls: 2 });
    expect(usage.costUsd).toBeCloseTo(2 * ((200 * 1.25 + 1000 * 0.125 + 300 * 10) / 1e6), 6);
  });

  it('refuses a request without a token, with a wrong one, or after the run ended, in the provider format, and calls nobody', async () => {
    await start();
    const none = await fetch(`${env().ANTHROPIC_BASE_URL}/v1/messages`, { method: 'POST', body: '{}' });
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const wrong = await openai('chat/completions', {}, 'sk-some-other-token');
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
    const { ANTHROPIC_API_KEY: token } = env();
    session.close();
    expect((await anthropic({}, token)).status).toBe(401);
    expect(standIn.received).toHaveLength(0);
    expect(proxy.openCount).toBe(0);
  });

  it("answers the provider's refusal of the gateway's key with its own error, never quoting the key", async () => {
    await start(undefined, 401);
    const res = await openai('chat/completions', {});
    expect(res.status).toBe(403);
    const text = await res.text();
    expect(text).toContain('TEST_OPENAI_KEY');
    expect(text).not.toContain('sk-real');
  });

  it('refuses the call after the one that passed usd_per_run, in the provider format, without calling the provider', async () => {
    await start({ usdPerRun: 0.005, whenExceeded: 'wait' });
    await (await anthropic({ stream: true })).text();
    expect(session.usd).toBeGreaterThan(0.005);
    const refused = await anthropic({ stream: true });
    expect(refused.status).toBe(402);
    expect(refused.headers.get('x-should-retry')).toBe('false');
    expect(await refused.json()).toMatchObject({
      type: 'error',
      error: { type: 'billing_error', message: expect.stringContaining('usd_per_run ($0.005) reached') },
    });
    const openaiRefused = await openai('chat/completions', {});
    expect(await openaiRefused.json()).toMatchObject({ error: { type: 'insufficient_quota', code: 'budget_exceeded' } });
    expect(standIn.received).toHaveLength(1);
    expect(session.ending()).toEqual({ outcome: 'budget_exceeded', note: expect.stringContaining('route budget usd_per_run ($0.005) reached') });
  });

  it('gives the run the URL and token and takes every model key out of its processes', async () => {
    await start();
    const planned: NodeJS.ProcessEnv[] = [];
    const plan = (command: string, args: readonly string[], e: NodeJS.ProcessEnv) => (planned.push(e), { command, args: [...args], env: e, cwd: '/tmp' });
    const sandbox = session.sandbox({ plan } as unknown as AgentSandbox);
    sandbox.plan('claude', [], { PATH: '/bin', TEST_ANTHROPIC_KEY: ANTHROPIC_KEY, CODEX_API_KEY: 'x', ANTHROPIC_API_KEY: ANTHROPIC_KEY });
    const [given] = planned;
    expect(given.TEST_ANTHROPIC_KEY).toBeUndefined();
    expect(given.CODEX_API_KEY).toBeUndefined();
    expect(given.ANTHROPIC_API_KEY).toBe(env().ANTHROPIC_API_KEY);
    expect(given.HOOKWISE_MODEL_PROXY_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(given.OPENAI_BASE_URL).toBe(`${given.HOOKWISE_MODEL_PROXY_URL}/v1`);
    expect(JSON.stringify(given)).not.toContain(ANTHROPIC_KEY);
    expect(session.needs(undefined).network).toEqual([given.HOOKWISE_MODEL_PROXY_URL!.replace('http://', '')]);
  });
});
