// Jest conformance tests for a source plugin over real HTTP: a real gateway on 127.0.0.1:0 with a route pinned to
// the source, requests signed the way the sender signs them. Call describeSourceOverHttp() from a plugin's test file.
/// <reference types="jest" />
import { createHmac } from 'node:crypto';
import { startTestGateway, type TestGateway } from './gateway-harness';

/** Which key signs: the route's first or second secret (rotation), or one the route does not know. */
export type SigningKey = 0 | 1 | 'wrong';

export interface SignArgs {
  body: Buffer;
  key: SigningKey;
  /** Seconds since the epoch to sign with (timestamped styles). */
  timestamp: number;
  /** The delivery id to send, where the sender sends one in a header. */
  deliveryId: string;
  /** The full URL the request goes to (styles that sign the URL). */
  url: string;
}

export interface SourceHandshakeCase {
  name: string;
  body: string;
  contentType?: string;
  /** Extra headers beside the signed ones. */
  headers?: Record<string, string>;
  /** The exact answer the sender's documentation asks for. */
  expect: { status: number; contentType?: string | RegExp; body: string | Record<string, unknown> };
}

export interface SourceConformanceOptions {
  /** The source id the route pins (`source:`). */
  source: string;
  /** The route's `secrets: [new, old]` (for key-pair styles, the sender's public keys). */
  secrets: [string, string];
  sourceOptions?: Record<string, unknown>;
  /** A documented example body (exact bytes are sent). */
  body: string;
  /**
   * For senders whose delivery id or timestamp is inside the signed body (Stripe's `id`, Slack's `event_id`,
   * Linear's `webhookTimestamp`): builds the body of each request from them. Default: `body` every time.
   */
  bodyFor?(args: { deliveryId: string; timestamp: number }): string;
  contentType?: string;
  /** The event type the example must produce. */
  event: string;
  /** The delivery id the gateway must report for a request signed with `deliveryId` (default: that id). */
  expectedDeliveryId?(deliveryId: string): string;
  /** Headers a real sender adds for the request: signature, timestamp, event, delivery id. */
  sign(args: SignArgs): Record<string, string> | Promise<Record<string, string>>;
  /** Set for styles with a signed timestamp: a request older than the window gets 401. */
  staleSeconds?: number;
  /** Headers of another sender's style (default: a GitHub `X-Hub-Signature-256` made with the route's first secret). */
  otherStyle?(body: Buffer, secrets: [string, string]): Record<string, string>;
  handshakes?: SourceHandshakeCase[];
  /** Extra route keys (e.g. `events`). */
  route?: Record<string, unknown>;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function githubStyle(body: Buffer, secrets: [string, string]): Record<string, string> {
  return { 'X-Hub-Signature-256': `sha256=${createHmac('sha256', secrets[0]).update(body).digest('hex')}`, 'X-GitHub-Event': 'push' };
}

let counter = 0;
const freshId = () => `conformance-${process.pid}-${Date.now()}-${++counter}`;

export function describeSourceOverHttp(name: string, options: SourceConformanceOptions): void {
  const body = Buffer.from(options.body);
  const contentType = options.contentType ?? 'application/json';
  let gw: TestGateway;
  const route = {
    source: options.source,
    secrets: options.secrets,
    ...(options.sourceOptions ? { source_options: options.sourceOptions } : {}),
    ...options.route,
  };

  const post = async (routeName: string, args: Partial<SignArgs> & { payload?: Buffer; contentType?: string; headers?: Record<string, string> } = {}) => {
    const deliveryId = args.deliveryId ?? freshId();
    const timestamp = args.timestamp ?? nowSeconds();
    const payload = args.payload ?? (options.bodyFor ? Buffer.from(options.bodyFor({ deliveryId, timestamp })) : body);
    const url = `${gw.url}/webhooks/${routeName}`;
    const headers = await options.sign({ body: payload, key: args.key ?? 0, timestamp, deliveryId, url });
    const res = await gw.post(routeName, payload, { 'content-type': args.contentType ?? contentType, ...headers, ...args.headers });
    return { ...res, deliveryId, sentHeaders: headers };
  };

  describe(`${name}: over real HTTP to a route pinned to source '${options.source}'`, () => {
    beforeAll(async () => {
      gw = await startTestGateway({
        config: {
          platforms: {
            webhook: {
              enabled: true,
              extra: { rate_limit: 1000, routes: { pinned: route, rotated: { ...route, secrets: [options.secrets[0]] } } },
            },
          },
          store: { backend: 'memory' },
        },
      });
    });
    afterAll(async () => {
      await gw?.stop();
    });

    it('answers 202 with the event type and delivery id of a correctly signed example', async () => {
      const res = await post('pinned');
      expect(res.body).toEqual({
        status: 'accepted',
        route: 'pinned',
        event: options.event,
        delivery_id: options.expectedDeliveryId ? options.expectedDeliveryId(res.deliveryId) : res.deliveryId,
      });
      expect(res.status).toBe(202);
    });

    it('answers 200 duplicate to the same delivery sent again', async () => {
      const timestamp = nowSeconds();
      const first = await post('pinned', { timestamp });
      const again = await post('pinned', { timestamp, deliveryId: first.deliveryId });
      expect(first.status).toBe(202);
      expect(again.status).toBe(200);
      expect(again.body.status).toBe('duplicate');
    });

    it('accepts either secret of a rotation, and refuses the old one once it is removed', async () => {
      expect((await post('pinned', { key: 1 })).status).toBe(202);
      expect((await post('rotated', { key: 0 })).status).toBe(202);
      const removed = await post('rotated', { key: 1 });
      expect(removed.status).toBe(401);
      expect(removed.body).toEqual({ error: 'Invalid signature' });
    });

    it('answers 401 Invalid signature to a request signed with another secret, and logs why', async () => {
      const res = await post('pinned', { key: 'wrong' });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Invalid signature' });
      // Failed-authentication lines are aggregated per client, so any earlier failure may have written the line.
      await gw.waitForLog(/Invalid signature/);
    });

    it('answers 401 when the signature headers are missing', async () => {
      const res = await gw.post('pinned', body, { 'content-type': contentType });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Missing signature' });
    });

    it("answers 401 to another sender's style on the pinned route", async () => {
      const res = await gw.post('pinned', body, { 'content-type': contentType, ...(options.otherStyle ?? githubStyle)(body, options.secrets) });
      expect(res.status).toBe(401);
    });

    if (options.staleSeconds !== undefined) {
      const stale = options.staleSeconds;
      it(`answers 401 to a request signed ${stale} s ago (replay window), and to one from the future`, async () => {
        const old = await post('pinned', { timestamp: nowSeconds() - stale });
        expect(old.status).toBe(401);
        expect(old.body).toEqual({ error: 'Invalid signature' });
        const future = await post('pinned', { timestamp: nowSeconds() + stale });
        expect(future.status).toBe(401);
      });
    }

    for (const handshake of options.handshakes ?? []) {
      it(`answers the ${handshake.name} handshake exactly as documented, and queues nothing`, async () => {
        const payload = Buffer.from(handshake.body);
        const res = await post('pinned', { payload, contentType: handshake.contentType, headers: handshake.headers });
        expect(res.status).toBe(handshake.expect.status);
        if (handshake.expect.contentType !== undefined) expect(res.headers.get('content-type') ?? '').toMatch(handshake.expect.contentType);
        if (typeof handshake.expect.body === 'string') expect(res.body).toEqual({ raw: handshake.expect.body });
        else expect(res.body).toEqual(handshake.expect.body);
      });
    }
  });
}
