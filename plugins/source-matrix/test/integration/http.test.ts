// The Matrix source over real HTTP, as a homeserver calls an application service whose `url` is the route's URL:
// PUT <url>/_matrix/app/v1/transactions/<txnId> with the hs_token, retried with the same txnId; the ping; and the
// answers of routes that do not pin it, which stay as they were.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestGateway, type TestGateway } from '@hookwise/testing';

const TRANSACTION = readFileSync(join(__dirname, '..', 'fixtures', 'transaction.json'));
const REPLY = readFileSync(join(__dirname, '..', 'fixtures', 'reply-transaction.json'));
const HS_TOKEN = 'hs-token-new-0123456789abcdef';
const OLD_HS_TOKEN = 'hs-token-old-0123456789abcdef';

describe('matrix: application-service transactions over real HTTP', () => {
  let gw: TestGateway;
  let txn = 0;
  const nextTxn = () => `${process.pid}-${Date.now()}-${++txn}`;

  beforeAll(async () => {
    gw = await startTestGateway({
      config: {
        platforms: {
          webhook: {
            enabled: true,
            extra: {
              routes: {
                matrix: { source: 'matrix', secrets: [HS_TOKEN, OLD_HS_TOKEN], prompt: 'p', deliver: 'log', allow_from: ['*'] },
                messages: { source: 'matrix', secret: HS_TOKEN, events: ['m.room.message'], prompt: 'p', deliver: 'log', allow_from: ['*'] },
                github: { secret: HS_TOKEN, prompt: 'p', deliver: 'log' },
              },
            },
          },
        },
      },
    });
  });
  afterAll(() => gw?.stop());

  const send = (path: string, init: { method?: string; body?: Buffer | string; token?: string } = {}) =>
    fetch(`${gw.url}${path}`, {
      method: init.method ?? 'PUT',
      body: init.method === 'GET' ? undefined : (init.body ?? TRANSACTION),
      headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    });
  const jsonOf = async (res: Response) => JSON.parse(await res.text()) as unknown;

  it('takes a transaction with the Bearer hs_token and answers 200 {}; the retry of the txnId queues nothing new', async () => {
    const id = nextTxn();
    const first = await send(`/webhooks/matrix/_matrix/app/v1/transactions/${id}`, { token: HS_TOKEN });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/application\/json/);
    expect(await jsonOf(first)).toEqual({});
    await gw.waitForLog(new RegExp(`${id}`));
    const retry = await send(`/webhooks/matrix/_matrix/app/v1/transactions/${id}`, { token: HS_TOKEN });
    expect(retry.status).toBe(200);
    expect(await jsonOf(retry)).toEqual({});
    expect(gw.logText()).toMatch(/duplicate/);
  });

  it('takes the legacy ?access_token= and path, and the older secret of a rotation', async () => {
    const res = await send(`/webhooks/matrix/transactions/${nextTxn()}?access_token=${OLD_HS_TOKEN}`);
    expect(res.status).toBe(200);
    expect(await jsonOf(res)).toEqual({});
  });

  it('refuses a wrong or missing hs_token with 401', async () => {
    const wrong = await send(`/webhooks/matrix/_matrix/app/v1/transactions/${nextTxn()}`, { token: 'not-the-hs-token' });
    expect(wrong.status).toBe(401);
    expect(await jsonOf(wrong)).toEqual({ error: 'Invalid signature' });
    const missing = await send(`/webhooks/matrix/_matrix/app/v1/transactions/${nextTxn()}`);
    expect(missing.status).toBe(401);
    expect(await jsonOf(missing)).toEqual({ error: 'Missing signature' });
  });

  it('answers a reply (m.relates_to) on a route filtering m.room.message 200 {}, and the ping 200 {}', async () => {
    const reply = await send(`/webhooks/messages/_matrix/app/v1/transactions/${nextTxn()}`, { token: HS_TOKEN, body: REPLY });
    expect(reply.status).toBe(200);
    expect(await jsonOf(reply)).toEqual({});
    const ping = await send('/webhooks/matrix/_matrix/app/v1/ping', {
      method: 'POST',
      token: HS_TOKEN,
      body: '{"transaction_id":"mautrix-go_1683636478256400935_123"}',
    });
    expect(ping.status).toBe(200);
    expect(await jsonOf(ping)).toEqual({});
  });

  it('answers another path below the route M_UNRECOGNIZED once verified', async () => {
    const res = await send('/webhooks/matrix/_matrix/app/v1/thirdparty/protocol/irc', { method: 'PUT', token: HS_TOKEN });
    expect(res.status).toBe(404);
    expect(await jsonOf(res)).toMatchObject({ errcode: 'M_UNRECOGNIZED' });
  });

  it('leaves routes that do not pin it as they were: PUT 405, a path below the route 404', async () => {
    expect((await send('/webhooks/github', { token: HS_TOKEN })).status).toBe(405);
    expect((await send('/webhooks/github/_matrix/app/v1/transactions/1', { token: HS_TOKEN })).status).toBe(404);
    expect((await send('/webhooks/github/sub', { method: 'POST', token: HS_TOKEN })).status).toBe(404);
    expect((await send('/webhooks/matrix/_matrix/app/v1/users/x', { method: 'GET' })).status).toBe(404);
  });
});
