// Conversations on a WeChat Official Account (issue 31), end to end over real HTTP against a stand-in of WeChat's
// server API, on a SQLite store: a route's answer is sent to a follower with the customer-service message API
// (POST /cgi-bin/message/custom/send {touser: <openid>}, the stand-in answering {"errcode":0,"errmsg":"ok"} as the
// docs' example does), after the stable access token. The follower writes back to the account, which WeChat posts to
// the inbound route as the documented text message XML ("Receiving standard messages",
// developers.weixin.qq.com/doc/service/en/guide/product/message/Receiving_standard_messages.html), in safe mode:
// encrypted with the EncodingAESKey for the AppID and signed with msg_signature by @wecom/crypto (Tencent's Node
// implementation of the WXBizMsgCrypt scheme), `signature` over Token, timestamp and nonce beside it, as the
// encryption guide ("消息加解密说明") shows. Such a message names no message it answers: it continues the latest
// answer to its author (FromUserName, the openid). The ORIGINAL route runs again, its agent (a command that echoes its
// prompt) seeing the event, the first answer and the reply, and its answer goes to the same openid. A follower not
// in allow_from runs nothing; a follower the gateway never answered goes to the inbound route as any event.
import { createHash, randomBytes } from 'node:crypto';
import { encrypt, getSignature } from '@wecom/crypto';
import { expectInOrder, type RecordedRequest, type RecordingServer } from '@hookwise/testing';
import { conversationHarness } from './conversation-harness';

jest.setTimeout(90_000);

const SECRET = 'conversation-alert-secret-0123456789';
/** The Token of the encryption guide's examples ("AAAAA"), a generated EncodingAESKey, and the account's AppID. */
const TOKEN = 'AAAAA';
const ENCODING_AES_KEY = 'kWxPEV2UEDyxWpmPdKC3F4dgPDmOvfKX1HGnEUDS1aR';
const APP_ID = 'wx1234567890abcdef';
/** The account's original id, ToUserName of every message. */
const ORIGINAL_ID = 'gh_97417a04a28d';
/** Openids as WeChat writes them (28 characters). */
const ALICE = 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o';
const BOB = 'oUpF8uDqGeVnS9ZmYdQx0rPbKw3E';
const CAROL = 'oUpF8uHtLk2aW7cNjXe5vRfM1sQz';

const conv = conversationHarness('wechat', SECRET);
let api: RecordingServer;
let nextMsgId = 1234567890123456;

const conversation = { enabled: true, max_turns: 3, ttl_hours: 1, allow_from: [ALICE] };
const config = (apiBase: string) => ({
  platforms: {
    wechat: { enabled: true, app_id: APP_ID, app_secret: 'wechat-app-secret-0123456789', api_base: apiBase },
    webhook: {
      enabled: true,
      extra: {
        routes: {
          alerts: { secret: SECRET, prompt: 'Alert: {title}', deliver: 'wechat', deliver_extra: { chat_id: ALICE }, conversation },
          // Bob gets this route's answers, but only Alice may continue its conversations.
          oncall: { secret: SECRET, prompt: 'Page: {title}', deliver: 'wechat', deliver_extra: { chat_id: BOB }, conversation },
          'wechat-in': {
            source: 'wechat',
            secret: `${TOKEN}:${ENCODING_AES_KEY}`,
            source_options: { app_id: APP_ID },
            prompt: 'WeChat message from {FromUserName}: {Content}',
            deliver: 'log',
            allow_from: ['*'],
          },
        },
      },
    },
  },
  agent: conv.agent,
  retry: { max_attempts: 2, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
  store: { backend: 'sqlite' },
});

/** A follower's text message to the account (the documented example, its sender, text and MsgId adapted), as WeChat posts it in safe mode. */
async function message(openid: string, text: string) {
  nextMsgId += 1;
  const xml =
    `<xml><ToUserName><![CDATA[${ORIGINAL_ID}]]></ToUserName><FromUserName><![CDATA[${openid}]]></FromUserName>` +
    `<CreateTime>${Math.floor(Date.now() / 1000)}</CreateTime><MsgType><![CDATA[text]]></MsgType><Content><![CDATA[${text}]]></Content>` +
    `<MsgId>${nextMsgId}</MsgId></xml>`;
  const encrypted = encrypt(ENCODING_AES_KEY, xml, APP_ID);
  const body = `<xml><ToUserName><![CDATA[${ORIGINAL_ID}]]></ToUserName><Encrypt><![CDATA[${encrypted}]]></Encrypt></xml>`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = String(randomBytes(4).readUInt32BE(0));
  const signature = createHash('sha1').update([TOKEN, timestamp, nonce].sort().join('')).digest('hex');
  const query = new URLSearchParams({
    signature,
    timestamp,
    nonce,
    openid,
    encrypt_type: 'aes',
    msg_signature: getSignature(TOKEN, timestamp, nonce, encrypted),
  });
  return conv.gw.post(`wechat-in?${query.toString()}`, body, { 'content-type': 'text/xml' });
}

const sent = () => api.requests.filter((r) => r.path === '/cgi-bin/message/custom/send');
const sentBody = (r: RecordedRequest) => r.json as { touser: string; msgtype: string; text: { content: string } };

beforeAll(async () => {
  api = await conv.startApi((req) => {
    if (req.path === '/cgi-bin/stable_token') return { json: { access_token: 'wechat-access-token-conversation', expires_in: 7200 } };
    if (req.path === '/cgi-bin/get_api_domain_ip') return { json: { ip_list: ['101.226.103.0/25'] } };
    // message/custom/send's documented answer.
    return { json: { errcode: 0, errmsg: 'ok' } };
  });
  await conv.start(config(api.url));
});

describe('conversations on a WeChat Official Account, through a real gateway on SQLite', () => {
  it('continues the conversation of the latest answer to the follower who writes, answering that openid', async () => {
    expect((await conv.alert('alerts', 'disk full')).status).toBe(202);
    await conv.waitFor('the first answer', () => conv.delivered('alerts') === 1);
    expect(sentBody(sent()[0])).toEqual({ touser: ALICE, msgtype: 'text', text: { content: 'ECHO[Alert: disk full]' } });

    // WeChat wants "success" (or an empty body) within 5 s for every message taken; anything else is retried.
    const answer = await message(ALICE, 'why is it full?');
    expect([answer.status, answer.body]).toEqual([200, { raw: 'success' }]);
    await conv.waitFor('the second answer', () => conv.delivered('alerts') === 2);
    expect(conv.gw.logText()).toMatch(
      new RegExp(`WeChat user ${ALICE}'s reply on route 'wechat-in' to conversation \\S+ of route 'alerts' continues conversation \\S+ as turn 2`),
    );
    const second = sentBody(sent()[1]);
    expect(second.touser).toBe(ALICE);
    const seen = second.text.content;
    expectInOrder(seen, ['Alert: disk full', 'ECHO[Alert: disk full]', 'why is it full?']);
    expect(seen).toContain('turn 2 of at most 3');
  });

  it('runs nothing when a follower not in allow_from writes back after an answer they got', async () => {
    expect((await conv.alert('oncall', 'db down')).status).toBe(202);
    await conv.waitFor("oncall's answer", () => conv.delivered('oncall') === 1);
    expect(sentBody(sent().at(-1)!).touser).toBe(BOB);
    const before = sent().length;
    expect((await message(BOB, 'restart it')).status).toBe(200);
    await conv.gw.waitForLog(`user ${BOB} is not in conversation.allow_from of route 'oncall'`, 20_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(sent().length).toBe(before);
  });

  it('hands a message from a follower the gateway never answered to the inbound route', async () => {
    const before = sent().length;
    expect((await message(CAROL, 'hello')).status).toBe(200);
    await conv.gw.waitForLog('via log', 20_000);
    expect(conv.gw.logText()).not.toContain(`WeChat user ${CAROL}'s reply`);
    expect(sent().length).toBe(before);
  });
});
