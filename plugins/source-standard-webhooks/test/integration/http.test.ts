// Over-HTTP tests of the Standard Webhooks source: the conformance kit on a route pinned to it, signed by the
// standardwebhooks SDK, then Svix's own header names and the raw secret encoding over a real gateway.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describeSourceOverHttp, startTestGateway, type TestGateway } from '@hookwise/testing';
import { BODY } from '../payload-samples';

const SECRETS: [string, string] = [`whsec_${randomBytes(32).toString('base64')}`, `whsec_${randomBytes(32).toString('base64')}`];
const WRONG = `whsec_${randomBytes(32).toString('base64')}`;
const sdkSign = (secret: string | Uint8Array, id: string, timestamp: number, body: Buffer | string, raw = false) =>
  (raw ? new Webhook(secret, { format: 'raw' }) : new Webhook(secret as string)).sign(id, new Date(timestamp * 1000), body.toString());

describeSourceOverHttp('Standard Webhooks', {
  source: 'standard-webhooks',
  secrets: SECRETS,
  body: BODY,
  event: 'contact.created',
  sign: ({ body, key, timestamp, deliveryId }) => ({
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sdkSign(key === 'wrong' ? WRONG : SECRETS[key], deliveryId, timestamp, body),
  }),
  staleSeconds: 600,
});

describe('Standard Webhooks over real HTTP: Svix header names, several signatures, raw secrets', () => {
  let gw: TestGateway;
  const LEGACY = 'a-legacy-secret-the-sender-reuses';
  const now = () => Math.floor(Date.now() / 1000);
  let counter = 0;
  const freshId = () => `msg_${process.pid}_${Date.now()}_${++counter}`;

  beforeAll(async () => {
    gw = await startTestGateway({
      config: {
        platforms: {
          webhook: {
            enabled: true,
            extra: {
              rate_limit: 1000,
              routes: {
                svix: { source: 'svix', secret: SECRETS[0], events: ['contact.created'] },
                legacy: { source: 'standard-webhooks', secret: LEGACY, source_options: { secret_encoding: 'raw', tolerance_seconds: 60 } },
              },
            },
          },
        },
        store: { backend: 'memory' },
      },
    });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it("accepts Svix's own svix-id / svix-timestamp / svix-signature headers on a route naming the alias svix", async () => {
    const id = freshId();
    const ts = now();
    const res = await gw.post('svix', BODY, { 'svix-id': id, 'svix-timestamp': String(ts), 'svix-signature': sdkSign(SECRETS[0], id, ts, BODY) });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: 'accepted', route: 'svix', event: 'contact.created', delivery_id: id });
  });

  it('accepts a header with several signatures when one matches, and ignores an event type the route does not list', async () => {
    const id = freshId();
    const ts = now();
    const signatures = `${sdkSign(WRONG, id, ts, BODY)} ${sdkSign(SECRETS[0], id, ts, BODY)}`;
    expect((await gw.post('svix', BODY, { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signatures })).status).toBe(202);
    const other = BODY.replace('contact.created', 'contact.deleted');
    const otherId = freshId();
    const res = await gw.post('svix', other, {
      'webhook-id': otherId,
      'webhook-timestamp': String(ts),
      'webhook-signature': sdkSign(SECRETS[0], otherId, ts, other),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ignored', event: 'contact.deleted' });
  });

  it('verifies a raw (unprefixed) secret with secret_encoding: raw, and applies the route tolerance of 60 s', async () => {
    const id = freshId();
    const ts = now();
    const ok = await gw.post('legacy', BODY, {
      'webhook-id': id,
      'webhook-timestamp': String(ts),
      'webhook-signature': sdkSign(Buffer.from(LEGACY), id, ts, BODY, true),
    });
    expect(ok.status).toBe(202);
    const lateId = freshId();
    const late = now() - 120;
    const stale = await gw.post('legacy', BODY, {
      'webhook-id': lateId,
      'webhook-timestamp': String(late),
      'webhook-signature': sdkSign(Buffer.from(LEGACY), lateId, late, BODY, true),
    });
    expect(stale.status).toBe(401);
    await gw.waitForLog(/s old \(tolerance 60 s\)/);
  });
});
