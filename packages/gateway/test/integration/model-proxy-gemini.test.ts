// The model proxy serving Google's Gemini API over real HTTP against a scripted Gemini stand-in (model-stand-ins.ts):
// generateContent and both streams (?alt=sse and the default JSON array), the run's token taken from x-goog-api-key
// or ?key= and never passed on, the real key added as x-goog-api-key, usageMetadata read and priced, a request
// without a valid token and a run past its cap refused in Google's error format.
import type { Job } from '@hookwise/core';
import { ModelProxy } from '../../src/model-proxy/model-proxy-hook';
import type { ProxySession } from '../../src/model-proxy/proxy-session';
import { createLogger } from '../../src/observe/logger';
import { MemoryWindowCounters } from '../../src/stores/memory-counters';
import type { Route } from '../../src/routes/routes';
import { GEMINI_USAGE, startModelStandIn, type StandIn } from './model-stand-ins';

const GEMINI_KEY = 'AIzaSy-real-gemini-key-0123456789abcdef';

let standIn: StandIn;
let proxy: ModelProxy;
let session: ProxySession;

const job = { id: 'job-1', deliveryId: 'd-1', payload: {} } as unknown as Job;

async function start(budget?: Route['budget'], env: Record<string, string> = { GEMINI_API_KEY: GEMINI_KEY }): Promise<void> {
  standIn = await startModelStandIn();
  proxy = new ModelProxy({
    config: { providers: { gemini: { base_url: standIn.url } } },
    env,
    logger: createLogger({ silent: true }),
    budgets: { counters: new MemoryWindowCounters(), global: undefined },
  });
  session = await proxy.open({ name: 'review', budget } as Route, job);
}

afterEach(async () => {
  await proxy?.close();
  await standIn?.close();
});

const env = () => session.env();
const BODY = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { thinkingConfig: { thinkingBudget: 1024 } } };

/** A call as Google's SDK makes it: POST <base>/v1beta/models/<model>:<method>, the key in x-goog-api-key. */
async function gemini(method: string, options: { model?: string; token?: string | null; query?: string } = {}): Promise<Response> {
  const { model = 'gemini-2.5-flash', token = env().GEMINI_API_KEY, query = '' } = options;
  return fetch(`${env().GOOGLE_GEMINI_BASE_URL}/v1beta/models/${model}:${method}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { 'x-goog-api-key': token } : {}) },
    body: JSON.stringify(BODY),
  });
}

/** GEMINI_USAGE on gemini-2.5-flash: 400 uncached at $0.30, 800 cached at $0.03, 250 + 150 thinking out at $2.50. */
const FLASH_COST = (400 * 0.3 + 800 * 0.03 + 400 * 2.5) / 1e6;
const FLASH_USAGE = {
  inputTokens: GEMINI_USAGE.promptTokenCount,
  outputTokens: GEMINI_USAGE.candidatesTokenCount + GEMINI_USAGE.thoughtsTokenCount,
  cachedInputTokens: GEMINI_USAGE.cachedContentTokenCount,
  cacheWriteTokens: 0,
};

describe('the model proxy for the Gemini API', () => {
  it('gives the run GOOGLE_GEMINI_BASE_URL and its token as GEMINI_API_KEY, never the real key', async () => {
    await start();
    expect(env().GOOGLE_GEMINI_BASE_URL).toBe(env().HOOKWISE_MODEL_PROXY_URL);
    expect(env().GEMINI_API_KEY).toBe(env().HOOKWISE_MODEL_PROXY_TOKEN);
    expect(proxy.heldKeys).toEqual(['GEMINI_API_KEY']);
    expect(JSON.stringify(env())).not.toContain(GEMINI_KEY);
  });

  it('forwards generateContent with the real key in x-goog-api-key, the body unchanged, and reads usageMetadata and its cost', async () => {
    await start();
    const res = await gemini('generateContent');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ candidates: [{ content: { parts: [{ text: 'Hello from the stand-in' }] } }] });
    expect(standIn.received).toHaveLength(1);
    const [got] = standIn.received;
    expect(got.method).toBe('POST');
    expect(got.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(got.headers['x-goog-api-key']).toBe(GEMINI_KEY);
    expect(got.body).toEqual(BODY);
    expect(JSON.stringify(got.headers)).not.toContain(env().GEMINI_API_KEY);
    expect(session.usage(undefined)).toEqual({ ...FLASH_USAGE, modelCalls: 1, costUsd: Math.round(FLASH_COST * 1e6) / 1e6 });
  });

  it('streams ?alt=sse through and counts the last chunk, taking a ?key= token off the query it passes on', async () => {
    await start();
    const res = await gemini('streamGenerateContent', { token: null, query: `?alt=sse&key=${env().GEMINI_API_KEY}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    expect(text).toContain('"text":"Hello from "');
    expect(text).toContain('"finishReason":"STOP"');
    const [got] = standIn.received;
    expect(got.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(got.headers['x-goog-api-key']).toBe(GEMINI_KEY);
    // The first chunk's partial counts are replaced by the last chunk's totals, not added to them.
    expect(session.usage(undefined)).toEqual({ ...FLASH_USAGE, modelCalls: 1, costUsd: Math.round(FLASH_COST * 1e6) / 1e6 });
  });

  it('reads the default stream (one JSON array) whole, and passes countTokens on without counting it', async () => {
    await start();
    const res = await gemini('streamGenerateContent', { model: 'gemini-2.5-pro' });
    const chunks = (await res.json()) as Array<{ usageMetadata: unknown }>;
    expect(chunks).toHaveLength(2);
    expect(await (await gemini('countTokens')).json()).toEqual({ totalTokens: 31 });
    expect(standIn.received.map((r) => r.path)).toEqual(['/v1beta/models/gemini-2.5-pro:streamGenerateContent', '/v1beta/models/gemini-2.5-flash:countTokens']);
    const usage = session.usage(undefined)!;
    expect(usage).toMatchObject({ ...FLASH_USAGE, modelCalls: 1 });
    expect(usage.costUsd).toBeCloseTo((400 * 1.25 + 800 * 0.125 + 400 * 10) / 1e6, 6);
  });

  it('calls with GOOGLE_API_KEY when the gateway holds that and no GEMINI_API_KEY', async () => {
    await start(undefined, { GOOGLE_API_KEY: GEMINI_KEY });
    expect(proxy.heldKeys).toEqual(['GOOGLE_API_KEY']);
    await (await gemini('generateContent')).text();
    expect(standIn.received[0].headers['x-goog-api-key']).toBe(GEMINI_KEY);
  });

  it("refuses a request without a token, with a wrong one, or after the run ended, in Google's error format, and calls nobody", async () => {
    await start();
    const none = await gemini('generateContent', { token: null });
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ error: { code: 401, message: expect.stringContaining('no valid run token'), status: 'UNAUTHENTICATED' } });
    const wrong = await gemini('streamGenerateContent', { token: null, query: '?alt=sse&key=AIzaSy-some-other-key' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: { status: 'UNAUTHENTICATED' } });
    const { GEMINI_API_KEY: token } = env();
    session.close();
    expect((await gemini('generateContent', { token })).status).toBe(401);
    expect(standIn.received).toHaveLength(0);
  });

  it("refuses the call after the one that passed tokens_per_run with a 402 in Google's format, without calling Google", async () => {
    await start({ tokensPerRun: 1000, whenExceeded: 'wait' });
    await (await gemini('streamGenerateContent', { query: '?alt=sse' })).text();
    const refused = await gemini('streamGenerateContent', { query: '?alt=sse' });
    expect(refused.status).toBe(402);
    expect(await refused.json()).toEqual({
      error: { code: 402, message: expect.stringContaining('tokens_per_run (1000) reached'), status: 'RESOURCE_EXHAUSTED' },
    });
    expect(standIn.received).toHaveLength(1);
    expect(session.ending()).toEqual({ outcome: 'budget_exceeded', note: expect.stringContaining('tokens_per_run (1000) reached') });
  });
});
