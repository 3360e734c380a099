// Over-HTTP tests of the Paddle source: the conformance kit on a route pinned to `source: paddle`, then the cases
// the kit cannot express for Paddle, whose delivery id (event_id) is inside the signed body rather than a header:
// duplicates and rotation with one body per event. Signatures are made as Paddle makes them and checked by the SDK.
import { createHmac } from 'node:crypto';
import { NodeRuntime, Webhooks } from '@paddle/paddle-node-sdk';
import { describeSourceOverHttp, startTestGateway, type TestGateway } from '@hookwise/testing';
import { transactionCompleted } from '../payload-samples';

const SECRETS: [string, string] = [
  'pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_NEWnewNEWnewNEWnewNEWnewNEWnew',
  'pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_OLDoldOLDoldOLDoldOLDoldOLDold',
];
const nowSeconds = () => Math.floor(Date.now() / 1000);
const paddleSignature = (secret: string, ts: number, body: Buffer | string) =>
  `ts=${ts};h1=${createHmac('sha256', secret).update(`${ts}:`).update(body).digest('hex')}`;

const EXAMPLE = transactionCompleted('evt_01hv8x29ncbvskbkcecpxxfsvc');

describeSourceOverHttp('Paddle Billing', {
  source: 'paddle',
  secrets: SECRETS,
  body: EXAMPLE,
  event: 'transaction.completed',
  // Paddle sends no delivery header: the delivery id is the body's event_id, one per request the kit makes.
  bodyFor: ({ deliveryId }) => JSON.stringify({ ...JSON.parse(EXAMPLE), event_id: `evt_${deliveryId}` }),
  expectedDeliveryId: (deliveryId) => `evt_${deliveryId}`,
  sign: ({ body, key, timestamp }) => ({
    'Paddle-Signature': paddleSignature(key === 'wrong' ? 'pdl_ntfset_not_this_destination' : SECRETS[key], timestamp, body),
  }),
  // Past the default 300 s window, both ways.
  staleSeconds: 600,
});

describe('Paddle Billing over real HTTP: one body per event', () => {
  let gw: TestGateway;
  let counter = 0;
  const freshEventId = () => `evt_${process.pid}${Date.now()}${++counter}`.padEnd(30, '0');

  beforeAll(async () => {
    NodeRuntime.initialize();
    const route = { source: 'paddle', secrets: SECRETS };
    gw = await startTestGateway({
      config: {
        platforms: {
          webhook: {
            enabled: true,
            extra: {
              rate_limit: 1000,
              routes: {
                paddle: route,
                rotated: { ...route, secrets: [SECRETS[0]] },
                per_notification: { ...route, source_options: { delivery_id: 'notification_id' } },
                strict: { ...route, source_options: { tolerance_seconds: 5 } },
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

  const send = async (routeName: string, body: string, secret: string, ts = nowSeconds()) => {
    const signature = paddleSignature(secret, ts, body);
    return { signature, res: await gw.post(routeName, body, { 'content-type': 'application/json', 'Paddle-Signature': signature }) };
  };

  it("accepts what Paddle's SDK accepts, with event_id as the delivery id", async () => {
    const eventId = freshEventId();
    const body = transactionCompleted(eventId);
    const { signature, res } = await send('paddle', body, SECRETS[0]);
    expect(await new Webhooks().isSignatureValid(body, SECRETS[0], signature)).toBe(true);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: 'accepted', route: 'paddle', event: 'transaction.completed', delivery_id: eventId });
  });

  it('answers 200 duplicate to the same event again (a retry, freshly signed), and to it from a second destination', async () => {
    const eventId = freshEventId();
    const first = await send('paddle', transactionCompleted(eventId), SECRETS[0]);
    const retry = await send('paddle', transactionCompleted(eventId), SECRETS[0], nowSeconds() + 1);
    const otherDestination = await send('paddle', transactionCompleted(eventId, 'ntf_01hv8x2h8ganx7pdrcvnk0rzq8'), SECRETS[1]);
    expect(first.res.status).toBe(202);
    expect(retry.res.status).toBe(200);
    expect(retry.res.body).toEqual({ status: 'duplicate', delivery_id: eventId });
    expect(otherDestination.res.status).toBe(200);
  });

  it('with delivery_id: notification_id, processes a replay requested through the API (new notification, same event)', async () => {
    const eventId = freshEventId();
    const original = await send('per_notification', transactionCompleted(eventId, 'ntf_original000000000000000000'), SECRETS[0]);
    const replay = await send('per_notification', transactionCompleted(eventId, 'ntf_replay00000000000000000000'), SECRETS[0]);
    expect(original.res.status).toBe(202);
    expect(replay.res.status).toBe(202);
    expect(replay.res.body.delivery_id).toBe('ntf_replay00000000000000000000');
  });

  it('accepts either secret of a rotation, and refuses the old one once it is removed', async () => {
    expect((await send('paddle', transactionCompleted(freshEventId()), SECRETS[1])).res.status).toBe(202);
    expect((await send('rotated', transactionCompleted(freshEventId()), SECRETS[0])).res.status).toBe(202);
    const removed = await send('rotated', transactionCompleted(freshEventId()), SECRETS[1]);
    expect(removed.res.status).toBe(401);
    expect(removed.res.body).toEqual({ error: 'Invalid signature' });
  });

  it('refuses with tolerance_seconds: 5 what the SDK refuses (30 s old), and accepts it on the default route', async () => {
    const body = transactionCompleted(freshEventId());
    const ts = nowSeconds() - 30;
    expect(await new Webhooks().isSignatureValid(body, SECRETS[0], paddleSignature(SECRETS[0], ts, body))).toBe(false);
    expect((await send('strict', body, SECRETS[0], ts)).res.status).toBe(401);
    expect((await send('paddle', body, SECRETS[0], ts)).res.status).toBe(202);
  });
});
