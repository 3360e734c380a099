import { isHookwiseError, type Deliverer } from '@hookwise/core';
import { CachedToken } from '../../src/platform/cached-token';
import { definePlatform, joinUrl, platformOptionsSchema, type PlatformOptions } from '@hookwise/kit/platform';
import { createTestPluginContext, startRecordingServer, type RecordingServer } from '@hookwise/testing';

// A made-up enterprise messenger: app credentials -> short-lived token, HTTP 200 with errcode in the body.
interface Options extends PlatformOptions {
  api_base: string;
  app_secret: string;
}
const SECRET = 'app-secret-0123456789';
const platform = definePlatform<Options>({
  id: 'platform_99',
  title: 'Example',
  limit: 100,
  maxParts: 20,
  success: { describe: 'errcode 0 and a msgid', test: (res) => typeof (res.json as { msgid?: unknown }).msgid === 'string' },
  optionsSchema: platformOptionsSchema({ properties: { app_secret: { type: 'string' } }, required: ['app_secret'] }),
  secrets: (o) => [o.app_secret],
  credentialsHint: 'check platforms.platform_99.app_secret',
  token: async ({ call, options }) => {
    const res = await call({ method: 'POST', url: joinUrl(options.api_base, 'gettoken'), json: { secret: options.app_secret } });
    const body = res.json as { access_token: string; expires_in: number };
    return { token: body.access_token, expiresInSeconds: body.expires_in };
  },
  request: (chunk, o) => ({ method: 'POST', url: `${joinUrl(o.api_base, 'send')}?access_token=${chunk.token}`, json: { to: chunk.target, text: chunk.text } }),
  checkResponse: (res) => {
    const body = res.json as { errcode?: number; errmsg?: string } | undefined;
    if (!body?.errcode) return undefined;
    if (body.errcode === 42001) return { kind: 'token_expired', message: `${body.errcode} ${body.errmsg}` };
    return { kind: 'rejected', message: `${body.errcode} ${body.errmsg}` };
  },
  messageId: (res) => (res.json as { msgid?: string }).msgid,
});

let server: RecordingServer;
let tokens = 0;
beforeEach(async () => {
  tokens = 0;
  server = await startRecordingServer((req) => {
    if (req.path === '/gettoken') return { json: { access_token: `tok-${++tokens}`, expires_in: 7200 } };
    return { json: { errcode: 0, msgid: `m-${req.query.get('access_token')}` } };
  });
});
afterEach(() => server.close());

const msg = { text: 'hello', route: 'r', event: 'e', deliveryId: 'd', extra: {} };
const opts = { signal: new AbortController().signal, attempt: 1 };

describe('definePlatform', () => {
  it('contributes a deliverer that requires platforms.<id>.enabled', () => {
    expect(platform).toMatchObject({ kind: 'deliverer', id: 'platform_99', requiresEnabled: true });
    expect((platform.optionsSchema as { required: string[] }).required).toEqual(['api_base', 'app_secret']);
  });

  it('fetches a token once, caches it, and refreshes it once when the platform says it expired', async () => {
    const { ctx } = createTestPluginContext();
    const d = platform.create({ api_base: server.url, app_secret: SECRET, home_channel: 'u1' }, ctx) as Deliverer;
    expect(await d.deliver(msg, opts)).toEqual({ target: 'u1', ids: ['m-tok-1'] });
    server.queue({ json: { errcode: 42001, errmsg: 'access_token expired' } });
    expect(await d.deliver({ ...msg, deliveryId: 'd2' }, opts)).toEqual({ target: 'u1', ids: ['m-tok-2'] });
    expect(server.requests.map((r) => r.url)).toEqual([
      '/gettoken',
      '/send?access_token=tok-1',
      '/send?access_token=tok-1',
      '/gettoken',
      '/send?access_token=tok-2',
    ]);
    expect(server.requests[0].json).toEqual({ secret: SECRET });
  });

  it('maps an error code in an HTTP 200 body to a non-retryable error, without query strings or secrets', async () => {
    const { ctx } = createTestPluginContext();
    const d = platform.create({ api_base: server.url, app_secret: SECRET, home_channel: 'u1' }, ctx) as Deliverer;
    server.queue({ json: { access_token: 'tok-x', expires_in: 7200 } }, { json: { errcode: 40003, errmsg: `invalid user (secret was ${SECRET})` } });
    const err = await d.deliver(msg, opts).catch((e: unknown) => e);
    expect(isHookwiseError(err) && err.retryable).toBe(false);
    expect(String((err as Error).message)).toContain('40003 invalid user');
    expect(String((err as Error).message)).not.toContain(SECRET);
    expect(String((err as Error).message)).not.toContain('tok-x');
  });

  it('reports options the schema cannot check at create time', () => {
    const strict = definePlatform<Options>({
      ...{ id: 'platform_98', title: 'X', limit: 100, maxParts: 1, optionsSchema: {}, secrets: () => [], credentialsHint: '' },
      configProblems: () => ['set token or webhook_url'],
      request: () => ({ url: 'http://x' }),
      success: { describe: 'x', test: () => true },
    });
    expect(() => strict.create({ api_base: 'http://x', app_secret: 'y' }, createTestPluginContext().ctx)).toThrow(
      'platforms.platform_98: set token or webhook_url',
    );
  });
});

describe('CachedToken', () => {
  it('shares one request between concurrent callers and renews before expiry', async () => {
    let now = 0;
    let issued = 0;
    const token = new CachedToken(async () => ({ token: `t${++issued}`, expiresInSeconds: 600 }), { earlySeconds: 300, now: () => now });
    const signal = new AbortController().signal;
    expect(await Promise.all([token.get(signal), token.get(signal)])).toEqual(['t1', 't1']);
    now = 299_000;
    expect(await token.get(signal)).toBe('t1');
    now = 300_001;
    expect(await token.get(signal)).toBe('t2');
  });
});
