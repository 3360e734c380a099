// Over-HTTP tests of the Shopify source: the conformance kit on a route pinned to `source: shopify`, signed as
// Shopify documents (base64 HMAC-SHA256 of the raw body with the client secret), then the topic filter.
import { createHmac, randomBytes } from 'node:crypto';
import { describeSourceOverHttp, startTestGateway, type TestGateway } from '@hookwise/testing';
import { DELIVERY_HEADERS, PRODUCTS_UPDATE } from '../fixtures';

const SECRETS: [string, string] = [randomBytes(16).toString('hex'), randomBytes(16).toString('hex')];
const WRONG = randomBytes(16).toString('hex');
const shopifyHmac = (secret: string, body: Buffer | string) => createHmac('sha256', secret).update(body).digest('base64');

describeSourceOverHttp('Shopify', {
  source: 'shopify',
  secrets: SECRETS,
  body: PRODUCTS_UPDATE,
  event: 'products/update',
  sign: ({ body, key, deliveryId }) => ({
    ...DELIVERY_HEADERS,
    'x-shopify-webhook-id': deliveryId,
    'x-shopify-hmac-sha256': shopifyHmac(key === 'wrong' ? WRONG : SECRETS[key], body),
  }),
  // No staleSeconds: Shopify signs no timestamp, so there is no replay window to test.
});

describe('Shopify over real HTTP: topics', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({
      config: {
        platforms: {
          webhook: { enabled: true, extra: { rate_limit: 1000, routes: { orders: { source: 'shopify', secret: SECRETS[0], events: ['orders/create'] } } } },
        },
        store: { backend: 'memory' },
      },
    });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('accepts the topics the route lists and ignores the others, by X-Shopify-Topic', async () => {
    const order = JSON.stringify({ id: 820982911946154500, email: 'jon@example.com', total_price: '403.00' });
    const post = (topic: string, id: string) =>
      gw.post('orders', order, {
        ...DELIVERY_HEADERS,
        'x-shopify-topic': topic,
        'x-shopify-webhook-id': id,
        'x-shopify-hmac-sha256': shopifyHmac(SECRETS[0], order),
      });
    const accepted = await post('orders/create', `wh-${Date.now()}-1`);
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ event: 'orders/create' });
    const ignored = await post('orders/paid', `wh-${Date.now()}-2`);
    expect(ignored.body).toEqual({ status: 'ignored', event: 'orders/paid' });
  });
});
