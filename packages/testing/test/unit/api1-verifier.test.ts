// Plugin API 1 verifiers keep working: the verifier contract still runs on one, and a gateway loads it as a source
// that only verifies, on routes that pin no source and on a route that names it.
import { createHmac } from 'node:crypto';
import { definePlugin, type Verifier } from '@hookwise/core';
import { Gateway, validateConfigObject } from '@hookwise/gateway';
import { describeVerifierContract } from '../../src';

const HEADER = 'x-acme-signature';
const acmeVerifier = (): Verifier => ({
  headers: [HEADER],
  verify(req, secret) {
    const value = req.headers[HEADER];
    if (typeof value !== 'string' || value === '') return { ok: false, reason: `missing ${HEADER}` };
    const expected = createHmac('sha256', secret).update(req.rawBody).digest('hex');
    return value === expected ? { ok: true } : { ok: false, reason: 'digest does not match' };
  },
});
const sign = (body: Buffer | string, secret: string) => ({ [HEADER]: createHmac('sha256', secret).update(body).digest('hex') });

describeVerifierContract('an API 1 verifier', acmeVerifier, { sign: (body, secret) => sign(body, secret) });

describe('an API 1 verifier plugin in a gateway', () => {
  const plugin = definePlugin({
    meta: { name: 'hookwise-plugin-acme', version: '1.0.0', api: 1 },
    contributes: [{ kind: 'verifier', id: 'acme', create: acmeVerifier }],
  });
  const secret = 'acme-route-secret-0123456789';
  const body = '{"event_type":"ping"}';

  it('verifies routes without source: by its header, and a route pinned to it', async () => {
    const config = validateConfigObject({
      platforms: { webhook: { enabled: true, extra: { routes: { open: { secret }, pinned: { secret, source: 'acme' } } } } },
    });
    const gateway = new Gateway({ config, configDir: '/nonexistent', plugins: [{ plugin, source: 'hookwise-plugin-acme', options: {} }] });
    await gateway.start();
    try {
      for (const route of ['open', 'pinned']) {
        const ok = await gateway.pipeline.handle({ route, headers: { 'content-type': 'application/json', ...sign(body, secret) }, body: Buffer.from(body) });
        expect(ok).toMatchObject({ status: 202, body: { status: 'accepted', event: 'ping' } });
        const bad = await gateway.pipeline.handle({
          route,
          headers: { 'content-type': 'application/json', ...sign(body, 'another-secret-0123456') },
          body: Buffer.from(body),
        });
        expect(bad).toMatchObject({ status: 401, body: { error: 'Invalid signature' } });
      }
      const generic = { 'x-webhook-signature': createHmac('sha256', secret).update(body).digest('hex') };
      expect((await gateway.pipeline.handle({ route: 'pinned', headers: generic, body: Buffer.from(body) })).status).toBe(401);
    } finally {
      await gateway.stop(0);
    }
  });
});
