// Over-HTTP tests of the Linear source: the conformance kit on a route pinned to `source: linear` (signatures checked
// by Linear's SDK first), then what the kit cannot express for Linear, whose timestamp is inside the signed body:
// the replay window, and events named <type>.<action>.
import { randomBytes } from 'node:crypto';
import { describeSourceOverHttp, startTestGateway, type TestGateway } from '@hookwise/testing';
import { commentCreate, DOCUMENTED_HEADERS, linearSdkVerify, linearSignature } from '../fixtures';

const SECRETS: [string, string] = [`lin_wh_${randomBytes(24).toString('hex')}`, `lin_wh_${randomBytes(24).toString('hex')}`];
const WRONG = `lin_wh_${randomBytes(24).toString('hex')}`;
// Built when the file loads: its webhookTimestamp stays inside the 60 s window while the kit's cases run.
const BODY = commentCreate();

describeSourceOverHttp('Linear', {
  source: 'linear',
  secrets: SECRETS,
  body: BODY,
  event: 'Comment.create',
  sign: ({ body, key, deliveryId }) => ({
    ...DOCUMENTED_HEADERS,
    'linear-delivery': deliveryId,
    'linear-signature': linearSignature(key === 'wrong' ? WRONG : SECRETS[key], body),
  }),
  // No staleSeconds: the kit moves the timestamp it signs, but Linear's is inside the body; tested below.
});

describe('Linear over real HTTP: the signed webhookTimestamp and event names', () => {
  let gw: TestGateway;
  let counter = 0;
  const delivery = () => `${process.pid}-${Date.now()}-${++counter}`;

  beforeAll(async () => {
    gw = await startTestGateway({
      config: {
        platforms: {
          webhook: {
            enabled: true,
            extra: {
              rate_limit: 1000,
              routes: {
                linear: { source: 'linear', secret: SECRETS[0], events: ['Comment.create', 'issue.create'] },
                by_type: { source: 'linear', secret: SECRETS[0], events: ['Comment'], source_options: { event_name: 'type', tolerance_seconds: 600 } },
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

  const send = (routeName: string, body: string, secret = SECRETS[0]) =>
    gw.post(routeName, body, { ...DOCUMENTED_HEADERS, 'linear-delivery': delivery(), 'linear-signature': linearSignature(secret, body) });

  it("refuses a body sent 2 minutes ago (Linear's SDK refuses it too) and logs the replay window; a route may widen it", async () => {
    const old = commentCreate(Date.now() - 120_000);
    expect(linearSdkVerify([{ secret: SECRETS[0], body: old, signature: linearSignature(SECRETS[0], old) }]).results[0]).not.toBe(true);
    const res = await send('linear', old);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Invalid signature' });
    await gw.waitForLog(/the timestamp is 1[12]\d s old \(tolerance 60 s\)/);
    expect((await send('by_type', old)).status).toBe(202);
  });

  it('names events <type>.<action> (matched case-insensitively by events), or by type alone with event_name: type', async () => {
    const issue = JSON.stringify({ ...JSON.parse(commentCreate()), type: 'Issue', data: { id: 'x', title: 'Crash on start' } });
    expect((await send('linear', issue)).body).toMatchObject({ status: 'accepted', event: 'Issue.create' });
    const update = JSON.stringify({ ...JSON.parse(commentCreate()), action: 'update' });
    expect((await send('linear', update)).body).toEqual({ status: 'ignored', event: 'Comment.update' });
    expect((await send('by_type', update)).body).toMatchObject({ status: 'accepted', event: 'Comment' });
  });
});
