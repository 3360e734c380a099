import type { Deliverer } from '@hookwise/core';
import { definePlatform, issuedTokenFrom, joinUrl, platformOptionsSchema, type PlatformOptions } from '@hookwise/kit/platform';
import { createTestPluginContext, deliverOptions, deliveryMessage, startRecordingServer } from '@hookwise/testing';

// A platform with an app mode (token) and a webhook mode (none), as the enterprise messengers have.
interface Options extends PlatformOptions {
  api_base: string;
  webhook?: boolean;
}
const platform = definePlatform<Options>({
  id: 'platform_98',
  title: 'Two modes',
  limit: 100,
  maxParts: 20,
  success: { describe: 'any answer', test: () => true },
  optionsSchema: platformOptionsSchema({ properties: { webhook: { type: 'boolean' } } }),
  secrets: () => [],
  credentialsHint: 'check platforms.platform_98',
  needsTarget: () => false,
  needsToken: (o) => !o.webhook,
  token: async ({ call, options }) => {
    const res = await call({ url: joinUrl(options.api_base, 'token') });
    return { token: (res.json as { token: string }).token };
  },
  request: (chunk, o) => ({ method: 'POST', url: joinUrl(o.api_base, o.webhook ? 'hook' : 'send'), json: { text: chunk.text, token: chunk.token ?? null } }),
});

describe('needsToken', () => {
  it('fetches no token for options that do not use one, and does for those that do', async () => {
    const server = await startRecordingServer((req) => ({ json: req.path === '/token' ? { token: 'tok-123456' } : {} }));
    try {
      const hook = platform.create({ api_base: server.url, webhook: true }, createTestPluginContext().ctx) as Deliverer;
      await hook.deliver(deliveryMessage('hi'), deliverOptions());
      const app = platform.create({ api_base: server.url }, createTestPluginContext().ctx) as Deliverer;
      await app.deliver(deliveryMessage('hi'), deliverOptions());
      expect(server.requests.map((r) => [r.path, r.json ?? null])).toEqual([
        ['/hook', { text: 'hi', token: null }],
        ['/token', null],
        ['/send', { text: 'hi', token: 'tok-123456' }],
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('issuedTokenFrom', () => {
  const answer = (json: unknown) => ({ status: 200, headers: new Headers(), text: JSON.stringify(json), json });
  it('reads the token and its lifetime from the named fields', () => {
    expect(issuedTokenFrom(answer({ access_token: 'abc', expires_in: 7200 }), { token: 'access_token', expiresIn: 'expires_in' }, 'x')).toEqual({
      token: 'abc',
      expiresInSeconds: 7200,
    });
    expect(issuedTokenFrom(answer({ tenant_access_token: 't-1' }), { token: 'tenant_access_token', expiresIn: 'expire' }, 'x')).toEqual({
      token: 't-1',
      expiresInSeconds: undefined,
    });
  });
  it('fails retryably when the answer has no token', () => {
    expect(() => issuedTokenFrom(answer({ errcode: 0 }), { token: 'access_token', expiresIn: 'expires_in' }, 'platform_99 (X)')).toThrow(
      'platform_99 (X): the token answer has no access_token',
    );
  });
});
