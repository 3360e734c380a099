// The WeChat source over real HTTP, as WeChat calls an Official Account's server URL: the GET URL check (echostr
// echoed as text), a plaintext-mode message signed by `signature`, a safe-mode message encrypted and signed by
// msg_signature (made with @wecom/crypto, the WXBizMsgCrypt scheme), each answered with the "success" WeChat wants
// (a retry of a MsgId queues nothing new), and refusals with the gateway's 401s.
import { randomInt } from 'node:crypto';
import { startTestGateway, type TestGateway } from '@hookwise/testing';
import { APP_ID, DOC_TOKEN, ENCODING_AES_KEY, TEXT_MESSAGE } from '../fixtures/wechat-docs';
import { plainRequest, safeRequest, urlCheckQuery } from '../wechat-sender';

const SAFE_SECRET = `${DOC_TOKEN}:${ENCODING_AES_KEY}`;
const OPENID = 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o';
/** A plaintext route's secret is the Token alone, which the gateway wants at least 16 characters long. */
const PLAIN_TOKEN = 'HookwisePlainModeToken2026';
const plain = { token: PLAIN_TOKEN };
const withMsgId = (id: string) => TEXT_MESSAGE.replace('<MsgId>1234567890123456</MsgId>', `<MsgId>${id}</MsgId>`).replace('fromUser', OPENID);

describe('wechat: Official Account messages over real HTTP', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      config: {
        platforms: {
          webhook: {
            enabled: true,
            extra: {
              routes: {
                'wechat-plain': { source: 'wechat', secret: PLAIN_TOKEN, prompt: 'p', deliver: 'log', allow_from: ['*'] },
                'wechat-safe': { source: 'wechat', secret: SAFE_SECRET, source_options: { app_id: APP_ID }, prompt: 'p', deliver: 'log', allow_from: ['*'] },
              },
            },
          },
        },
      },
    });
  });
  afterAll(() => gw?.stop());

  const get = (path: string) => fetch(`${gw.url}${path}`);
  const post = (route: string, req: { query: string; body: string }) =>
    fetch(`${gw.url}/webhooks/${route}?${req.query}`, { method: 'POST', body: req.body, headers: { 'content-type': 'text/xml' } });

  it('answers the GET URL check with echostr, as text/plain, in plaintext and in safe mode alike', async () => {
    for (const [route, token] of [
      ['wechat-plain', PLAIN_TOKEN],
      ['wechat-safe', DOC_TOKEN],
    ]) {
      const res = await get(`/webhooks/${route}?${urlCheckQuery('4375120948345356249', { token })}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toBe('4375120948345356249');
    }
    expect(gw.logText()).toContain("answered the wechat handshake on route 'wechat-plain'");
  });

  it('refuses a URL check signed with another Token with 401, echoing nothing', async () => {
    const wrong = await get(`/webhooks/wechat-plain?${urlCheckQuery('42', { token: 'Other1' })}`);
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain('42');
  });

  it('takes a plaintext message with "success"; the retry of its MsgId queues nothing new', async () => {
    const msgId = String(randomInt(1e12, 1e13));
    const first = await post('wechat-plain', plainRequest(withMsgId(msgId), OPENID, plain));
    expect(first.status).toBe(200);
    expect(await first.text()).toBe('success');
    await gw.waitForLog(new RegExp(`event text, delivery ${msgId}`));
    const retry = await post('wechat-plain', plainRequest(withMsgId(msgId), OPENID, plain));
    expect(retry.status).toBe(200);
    await gw.waitForLog(new RegExp(`duplicate delivery ${msgId}`));
  });

  it('takes a safe-mode message, decrypted, with "success"', async () => {
    const msgId = String(randomInt(1e12, 1e13));
    const res = await post('wechat-safe', safeRequest(withMsgId(msgId), OPENID));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('success');
    await gw.waitForLog(new RegExp(`event text, delivery ${msgId}`));
  });

  it('refuses a safe-mode message for another AppID or signed with another Token, and a plaintext one to the safe route (401)', async () => {
    const otherApp = await post('wechat-safe', safeRequest(withMsgId('1'), OPENID, { appId: 'wxother0000000000' }));
    expect(otherApp.status).toBe(401);
    const wrongToken = await post('wechat-safe', safeRequest(withMsgId('2'), OPENID, { token: 'Other1' }));
    expect(wrongToken.status).toBe(401);
    expect(await wrongToken.json()).toEqual({ error: 'Invalid signature' });
    const plainToSafe = await post('wechat-safe', plainRequest(withMsgId('3'), OPENID));
    expect(plainToSafe.status).toBe(401);
    const unsigned = await post('wechat-plain', { query: '', body: withMsgId('4') });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toEqual({ error: 'Missing signature' });
  });
});
