// The WeCom source over real HTTP, as WeCom calls an app's callback URL: the GET URL check (echostr decrypted and
// echoed as text), encrypted messages signed in the query (answered with the empty 200 WeCom wants; a retry of a
// MsgId queues nothing new), and refusals with the gateway's 401s. Requests are made with @wecom/crypto.
import { randomInt } from 'node:crypto';
import { routesConfig, startTestGateway, type TestGateway } from '@hookwise/testing';
import { CORP_ID, ENCODING_AES_KEY, TEXT_MESSAGE, TOKEN } from '../fixtures/wecom-docs';
import { messageRequest, urlCheckQuery } from '../wecom-sender';

const SECRET = `${TOKEN}:${ENCODING_AES_KEY}`;
const OLD_SECRET = 'OldToken1:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ';
const withMsgId = (id: string) => TEXT_MESSAGE.replace('<MsgId>1234567890123456</MsgId>', `<MsgId>${id}</MsgId>`);

describe('wecom: app callbacks over real HTTP', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      config: routesConfig({
        wecom: { source: 'wecom', secrets: [SECRET, OLD_SECRET], source_options: { corp_id: CORP_ID }, prompt: 'p', deliver: 'log', allow_from: ['*'] },
        other: { secret: SECRET, prompt: 'p', deliver: 'log' },
      }),
    });
  });
  afterAll(() => gw?.stop());

  const get = (path: string) => fetch(`${gw.url}${path}`);
  const post = (req: { query: string; body: string }, route = 'wecom') =>
    fetch(`${gw.url}/webhooks/${route}?${req.query}`, { method: 'POST', body: req.body, headers: { 'content-type': 'text/xml' } });

  it('answers the GET URL check with echostr decrypted, as text/plain, and queues nothing', async () => {
    const res = await get(`/webhooks/wecom?${urlCheckQuery('1616140317555161061')}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('1616140317555161061');
    expect(gw.logText()).toContain("answered the wecom handshake on route 'wecom'");
  });

  it('refuses a URL check signed with another Token, or encrypted for another CorpID, with 401', async () => {
    const wrong = await get(`/webhooks/wecom?${urlCheckQuery('42', { token: 'Other' })}`);
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain('42');
    expect((await get(`/webhooks/wecom?${urlCheckQuery('42', { receiverId: 'wwother' })}`)).status).toBe(401);
    expect((await get('/webhooks/wecom')).status).toBe(401);
  });

  it('takes the documented message with an empty 200; the retry of its MsgId queues nothing new', async () => {
    const msgId = String(randomInt(1e12, 1e13));
    const first = await post(messageRequest(withMsgId(msgId)));
    expect(first.status).toBe(200);
    expect(await first.text()).toBe('');
    await gw.waitForLog(new RegExp(`event text, delivery ${msgId}`));
    const retry = await post(messageRequest(withMsgId(msgId)));
    expect(retry.status).toBe(200);
    await gw.waitForLog(new RegExp(`duplicate delivery ${msgId}`));
  });

  it('refuses a message signed with another Token (401 Invalid signature) or without msg_signature (401 Missing signature)', async () => {
    const wrong = await post(messageRequest(withMsgId('1'), { token: 'Other' }));
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'Invalid signature' });
    const missing = await post({ query: '', body: messageRequest(withMsgId('2')).body });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ error: 'Missing signature' });
  });

  it('leaves GET on a route that does not pin it as it was: 405', async () => {
    expect((await get(`/webhooks/other?${urlCheckQuery('1')}`)).status).toBe(405);
  });
});
