// Over-HTTP tests of the Stripe source: the conformance kit on a route pinned to `source: stripe` with headers from
// Stripe's SDK, then what the kit cannot express for Stripe, whose delivery id (the evt_ id) is inside the signed
// body: duplicates, retries and rotation with one body per event.
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { describeSourceOverHttp, startTestGateway, type TestGateway } from '@hookwise/testing';
import { EVENT_EXAMPLE } from '../fixtures';

const stripe = new Stripe('sk_test_not_used_for_network');
const SECRETS: [string, string] = [`whsec_${randomBytes(24).toString('hex')}`, `whsec_${randomBytes(24).toString('hex')}`];
const WRONG = `whsec_${randomBytes(24).toString('hex')}`;
const stripeHeader = (secret: string, timestamp: number, body: Buffer | string) =>
  stripe.webhooks.generateTestHeaderString({ payload: body.toString(), secret, timestamp });
const nowSeconds = () => Math.floor(Date.now() / 1000);

describeSourceOverHttp('Stripe', {
  source: 'stripe',
  secrets: SECRETS,
  body: EVENT_EXAMPLE,
  // Stripe sends no delivery header: the delivery id is the Event's own `id`, inside the signed body.
  bodyFor: ({ deliveryId }) => JSON.stringify({ ...JSON.parse(EVENT_EXAMPLE), id: `evt_${deliveryId}` }),
  expectedDeliveryId: (deliveryId) => `evt_${deliveryId}`,
  event: 'setup_intent.created',
  sign: ({ body, key, timestamp }) => ({ 'Stripe-Signature': stripeHeader(key === 'wrong' ? WRONG : SECRETS[key], timestamp, body) }),
  staleSeconds: 600,
});

describe('Stripe over real HTTP: one body per event', () => {
  let gw: TestGateway;
  let counter = 0;
  const event = (type = 'invoice.paid') => {
    const id = `evt_${process.pid}x${Date.now()}x${++counter}`;
    return { id, body: JSON.stringify({ ...JSON.parse(EVENT_EXAMPLE), id, type }) };
  };

  beforeAll(async () => {
    const route = { source: 'stripe', secrets: SECRETS };
    gw = await startTestGateway({
      config: {
        platforms: {
          webhook: {
            enabled: true,
            extra: {
              rate_limit: 1000,
              routes: {
                stripe: route,
                rotated: { ...route, secrets: [SECRETS[0]] },
                invoices: { ...route, events: ['invoice.paid'] },
                lenient: { ...route, source_options: { tolerance_seconds: 3600 } },
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

  const send = (routeName: string, body: string, secret: string, ts = nowSeconds()) =>
    gw.post(routeName, body, { 'Stripe-Signature': stripeHeader(secret, ts, body) });

  it('accepts an event with its evt_ id as delivery id, and answers a retry (fresh t=, same event) as a duplicate', async () => {
    const { id, body } = event();
    const first = await send('stripe', body, SECRETS[0]);
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ status: 'accepted', route: 'stripe', event: 'invoice.paid', delivery_id: id });
    const retry = await send('stripe', body, SECRETS[0], nowSeconds() + 1);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ status: 'duplicate', delivery_id: id });
  });

  it('accepts either secret of a rotation and refuses the old one once it is removed', async () => {
    expect((await send('stripe', event().body, SECRETS[1])).status).toBe(202);
    expect((await send('rotated', event().body, SECRETS[0])).status).toBe(202);
    const removed = await send('rotated', event().body, SECRETS[1]);
    expect(removed.status).toBe(401);
    expect(removed.body).toEqual({ error: 'Invalid signature' });
  });

  it("filters on the Event's type with the route's events", async () => {
    expect((await send('invoices', event('invoice.paid').body, SECRETS[0])).status).toBe(202);
    const ignored = await send('invoices', event('charge.refunded').body, SECRETS[0]);
    expect(ignored.status).toBe(200);
    expect(ignored.body).toEqual({ status: 'ignored', event: 'charge.refunded' });
  });

  it('applies the replay window of the route: 10 minutes late is refused by default, accepted with tolerance_seconds 3600', async () => {
    const late = nowSeconds() - 600;
    const refused = await send('stripe', event().body, SECRETS[0], late);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: 'Invalid signature' });
    expect((await send('lenient', event().body, SECRETS[0], late)).status).toBe(202);
  });
});
