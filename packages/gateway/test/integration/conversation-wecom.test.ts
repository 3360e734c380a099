// Conversations on WeCom (issue 31), end to end over real HTTP against a stand-in of the WeCom server API, on a
// SQLite store: a route's answer is sent to a member with 发送应用消息 message/send (the stand-in answering as the
// docs' example does, developer.work.weixin.qq.com/document/path/90236); the member writes back to the app, which
// WeCom posts to the inbound route as the documented text message XML (消息格式, document/path/90239), encrypted with
// the EncodingAESKey and signed with msg_signature by WeCom's own Node library (@wecom/crypto), as WeCom does. Such a
// message names no message it answers: it continues the latest answer to its author (FromUserName). The ORIGINAL
// route runs again, its agent (a command that echoes its prompt) seeing the event, the first answer and the reply,
// and its answer goes to the same member. A member not in allow_from runs nothing; a member the gateway never
// answered goes to the inbound route as any event.
import { randomBytes } from 'node:crypto';
import { encrypt, getSignature } from '@wecom/crypto';
import { expectInOrder, type RecordedRequest, type RecordingServer } from '@hookwise/testing';
import { conversationHarness } from './conversation-harness';

jest.setTimeout(90_000);

const SECRET = 'conversation-alert-secret-0123456789';
/** The Token, EncodingAESKey and CorpID of the samples on "加解密方案说明" (developer.work.weixin.qq.com/document/path/90968). */
const TOKEN = 'QDG6eK';
const ENCODING_AES_KEY = 'jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C';
const CORP_ID = 'wx5823bf96d3bd56c7';
const AGENT_ID = 1000002;

const conv = conversationHarness('wecom', SECRET);
let api: RecordingServer;
let nextMsgId = 1234567890123456;

const conversation = { enabled: true, max_turns: 3, ttl_hours: 1, allow_from: ['zhangsan'] };
const config = (apiBase: string) => ({
  platforms: {
    wecom: { enabled: true, corp_id: CORP_ID, corp_secret: 'wecom-corp-secret-0123456789', agent_id: AGENT_ID, api_base: apiBase },
    webhook: {
      enabled: true,
      extra: {
        routes: {
          alerts: { secret: SECRET, prompt: 'Alert: {title}', deliver: 'wecom', deliver_extra: { chat_id: 'user:zhangsan' }, conversation },
          // lisi gets this route's answers, but only zhangsan may continue its conversations.
          oncall: { secret: SECRET, prompt: 'Page: {title}', deliver: 'wecom', deliver_extra: { chat_id: 'user:lisi' }, conversation },
          'wecom-in': {
            source: 'wecom',
            secret: `${TOKEN}:${ENCODING_AES_KEY}`,
            source_options: { corp_id: CORP_ID },
            prompt: 'WeCom message from {FromUserName}: {Content}',
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

/** A member's text message to the app (the 消息格式 example, its sender, text and MsgId adapted), as WeCom posts it. */
async function message(from: string, text: string) {
  nextMsgId += 1;
  const xml =
    `<xml><ToUserName><![CDATA[${CORP_ID}]]></ToUserName><FromUserName><![CDATA[${from}]]></FromUserName>` +
    `<CreateTime>${Math.floor(Date.now() / 1000)}</CreateTime><MsgType><![CDATA[text]]></MsgType><Content><![CDATA[${text}]]></Content>` +
    `<MsgId>${nextMsgId}</MsgId><AgentID>${AGENT_ID}</AgentID></xml>`;
  const encrypted = encrypt(ENCODING_AES_KEY, xml, CORP_ID);
  // The envelope of 接收数据格式 (document/path/90930), msg_signature over Token, timestamp, nonce and the ciphertext.
  const body = `<xml><ToUserName><![CDATA[${CORP_ID}]]></ToUserName><AgentID><![CDATA[${AGENT_ID}]]></AgentID><Encrypt><![CDATA[${encrypted}]]></Encrypt></xml>`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(5).toString('hex');
  const query = new URLSearchParams({ msg_signature: getSignature(TOKEN, timestamp, nonce, encrypted), timestamp, nonce });
  return conv.gw.post(`wecom-in?${query.toString()}`, body, { 'content-type': 'text/xml' });
}

const sent = () => api.requests.filter((r) => r.path === '/cgi-bin/message/send');
const sentBody = (r: RecordedRequest) => r.json as { touser: string; msgtype: string; agentid: number; text: { content: string } };

beforeAll(async () => {
  api = await conv.startApi((req) => {
    if (req.path === '/cgi-bin/gettoken') return { json: { errcode: 0, errmsg: 'ok', access_token: 'wecom-access-token-conversation', expires_in: 7200 } };
    if (req.path === '/cgi-bin/get_api_domain_ip') return { json: { errcode: 0, errmsg: 'ok', ip_list: ['182.254.11.176'] } };
    // message/send's documented answer (its example's empty lists: every recipient reached).
    return {
      json: {
        errcode: 0,
        errmsg: 'ok',
        invaliduser: '',
        invalidparty: '',
        invalidtag: '',
        unlicenseduser: '',
        msgid: `msgid-${sent().length}`,
        response_code: '',
      },
    };
  });
  await conv.start(config(api.url));
});

describe('conversations on WeCom, through a real gateway on SQLite', () => {
  it('continues the conversation of the latest answer to the member who writes, answering that member', async () => {
    expect((await conv.alert('alerts', 'disk full')).status).toBe(202);
    await conv.waitFor('the first answer', () => conv.delivered('alerts') === 1);
    expect(sentBody(sent()[0])).toEqual({ touser: 'zhangsan', msgtype: 'text', agentid: AGENT_ID, text: { content: 'ECHO[Alert: disk full]' } });

    // WeCom wants an empty 200 for every message taken (anything else is retried).
    const answer = await message('zhangsan', 'why is it full?');
    expect([answer.status, answer.body]).toEqual([200, { raw: '' }]);
    await conv.waitFor('the second answer', () => conv.delivered('alerts') === 2);
    expect(conv.gw.logText()).toMatch(
      /WeCom user zhangsan's reply on route 'wecom-in' to conversation \S+ of route 'alerts' continues conversation \S+ as turn 2/,
    );
    const second = sentBody(sent()[1]);
    expect([second.touser, second.agentid]).toEqual(['zhangsan', AGENT_ID]);
    const seen = second.text.content;
    expectInOrder(seen, ['Alert: disk full', 'ECHO[Alert: disk full]', 'why is it full?']);
    expect(seen).toContain('turn 2 of at most 3');
  });

  it('runs nothing when a member not in allow_from writes back after an answer they got', async () => {
    expect((await conv.alert('oncall', 'db down')).status).toBe(202);
    await conv.waitFor("oncall's answer", () => conv.delivered('oncall') === 1);
    expect(sentBody(sent().at(-1)!).touser).toBe('lisi');
    const before = sent().length;
    expect((await message('lisi', 'restart it')).status).toBe(200);
    await conv.gw.waitForLog(`user lisi is not in conversation.allow_from of route 'oncall'`, 20_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(sent().length).toBe(before);
  });

  it('hands a message from a member the gateway never answered to the inbound route', async () => {
    const before = sent().length;
    expect((await message('wangwu', 'hello')).status).toBe(200);
    await conv.gw.waitForLog('via log', 20_000);
    expect(conv.gw.logText()).not.toContain("WeCom user wangwu's reply");
    expect(sent().length).toBe(before);
  });
});
