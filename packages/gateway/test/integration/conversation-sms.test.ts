// Conversations by SMS through Twilio (issue 31), end to end over real HTTP against a Twilio Messages API stand-in,
// on a SQLite store: a route's answer is sent as an SMS (the Message resource's create answer, sid SM...); the
// person texts back, which Twilio posts to the inbound route as its incoming-message webhook (a form with From, To,
// Body, MessageSid...; https://www.twilio.com/docs/messaging/guides/webhook-request) signed with X-Twilio-Signature
// (computed here by the official `twilio` package from the Auth Token, the URL and the form). An SMS names no
// message it answers: the person's next SMS continues the conversation of the latest answer sent to their number
// (platform `sms` on both sides, though the source is `twilio`). The second run sees the event, the first answer
// and the reply, and its answer goes to the same number. Someone not in allow_from runs nothing; a number the
// gateway never answered goes to the inbound route as any event; an SMS after ttl_hours continues nothing.
import { getExpectedTwilioSignature, validateRequest } from 'twilio/lib/webhooks/webhooks';
import { expectInOrder, type RecordingServer } from '@hookwise/testing';
import { conversationHarness } from './conversation-harness';

jest.setTimeout(90_000);

const SECRET = 'conversation-alert-secret-0123456789';
const ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
/** The account's Auth Token: the deliverer's credential, and the key of X-Twilio-Signature on the inbound route. */
const AUTH_TOKEN = 'f00dbabe0123456789abcdef01234567';
const TWILIO_NUMBER = '+15005550006';
const ALICE = '+14017122661';
const BOB = '+14017120000';
const CAROL = '+14017129999';

const conv = conversationHarness('sms', SECRET);
let api: RecordingServer;
let sentCount = 0;
let inboundCount = 0;

const conversation = { enabled: true, max_turns: 3, ttl_hours: 1, allow_from: [ALICE] };
const config = (apiBase: string) => ({
  platforms: {
    sms: { enabled: true, account_sid: ACCOUNT_SID, auth_token: AUTH_TOKEN, from: TWILIO_NUMBER, api_base: apiBase },
    webhook: {
      enabled: true,
      extra: {
        routes: {
          alerts: { secret: SECRET, prompt: 'Alert: {title}', deliver: 'sms', deliver_extra: { chat_id: ALICE }, conversation },
          // Bob gets this route's answers, but only Alice may continue its conversations.
          oncall: { secret: SECRET, prompt: 'Page: {title}', deliver: 'sms', deliver_extra: { chat_id: BOB }, conversation },
          // 0.001 h = 3.6 s: an SMS 4.5 s after the answer is past it (records are kept twice as long).
          brief: {
            secret: SECRET,
            prompt: 'Brief: {title}',
            deliver: 'sms',
            deliver_extra: { chat_id: CAROL },
            conversation: { enabled: true, ttl_hours: 0.001, allow_from: [CAROL] },
          },
          'sms-in': { source: 'twilio', secret: AUTH_TOKEN, prompt: 'Inbound SMS: {Body}', deliver: 'log', allow_from: ['*'] },
        },
      },
    },
  },
  agent: conv.agent,
  retry: { max_attempts: 2, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
  store: { backend: 'sqlite' },
});

const sent = () => api.requests.filter((r) => r.method === 'POST' && r.path === `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`).map((r) => r.form!);

const alert = (route: string, title: string) => conv.alert(route, title, `${route}-${title}`);

/** An incoming SMS as Twilio posts it to the number's webhook: its documented form fields, signed as Twilio signs. */
async function sms(from: string, text: string) {
  inboundCount += 1;
  const sid = `SM${String(inboundCount).padStart(32, 'a')}`;
  const params: Record<string, string> = {
    ToCountry: 'US',
    ToState: 'CA',
    SmsMessageSid: sid,
    NumMedia: '0',
    SmsSid: sid,
    SmsStatus: 'received',
    Body: text,
    To: TWILIO_NUMBER,
    NumSegments: '1',
    MessageSid: sid,
    AccountSid: ACCOUNT_SID,
    From: from,
    ApiVersion: '2010-04-01',
  };
  const url = `${conv.gw.url}/webhooks/sms-in`;
  const signature = getExpectedTwilioSignature(AUTH_TOKEN, url, params);
  // The signature is one Twilio's own validator takes for this URL and form: what the route must accept.
  expect(validateRequest(AUTH_TOKEN, signature, url, params)).toBe(true);
  return conv.gw.post('sms-in', new URLSearchParams(params).toString(), {
    'content-type': 'application/x-www-form-urlencoded',
    'x-twilio-signature': signature,
    'i-twilio-idempotency-token': `idem-${sid}`,
  });
}

beforeAll(async () => {
  api = await conv.startApi((req) => {
    if (req.method === 'GET') return { json: { sid: ACCOUNT_SID, friendly_name: 'ci', status: 'active' } };
    // The Message resource's create answer (trimmed to what is read): 201 with the new message's sid.
    const form = req.form ?? {};
    const sid = `SM${String(++sentCount).padStart(32, '0')}`;
    return {
      status: 201,
      json: {
        account_sid: ACCOUNT_SID,
        api_version: '2010-04-01',
        body: form.Body,
        direction: 'outbound-api',
        from: form.From,
        to: form.To,
        sid,
        status: 'queued',
      },
    };
  });
  await conv.start(config(api.url));
});

describe('conversations by SMS (Twilio), through a real gateway on SQLite', () => {
  it("continues the conversation of the latest answer to the sender's number, answering to that number", async () => {
    expect((await alert('alerts', 'disk full')).status).toBe(202);
    await conv.waitFor('the first answer', () => conv.delivered('alerts') === 1);
    expect(sent()[0]).toEqual({ To: ALICE, From: TWILIO_NUMBER, Body: 'ECHO[Alert: disk full]' });

    const answer = await sms(ALICE, 'why is it full?');
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ status: 'accepted', route: 'alerts', turn: 2 });
    await conv.waitFor('the second answer', () => conv.delivered('alerts') === 2);
    const second = sent()[1];
    expect([second.To, second.From]).toEqual([ALICE, TWILIO_NUMBER]);
    expectInOrder(second.Body, ['Alert: disk full', 'ECHO[Alert: disk full]', 'why is it full?']);
    expect(second.Body).toContain(`SMS sender ${ALICE}`);
    expect(second.Body).toContain('turn 2 of at most 3');

    // The next SMS continues from the latest answer (turn 2), so it is turn 3.
    const again = await sms(ALICE, 'and now?');
    expect(again.body).toMatchObject({ status: 'accepted', route: 'alerts', turn: 3 });
    await conv.waitFor('the third answer', () => conv.delivered('alerts') === 3);
    expect(sent()[2].Body).toContain('and now?');
  });

  it('runs nothing when someone not in allow_from texts back after an answer they got', async () => {
    expect((await alert('oncall', 'db down')).status).toBe(202);
    await conv.waitFor("oncall's answer", () => conv.delivered('oncall') === 1);
    expect(sent().at(-1)!.To).toBe(BOB);
    const before = sent().length;
    const answer = await sms(BOB, 'restart it');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'ignored', reason: 'conversation_not_allowed' });
    expect(conv.gw.logText()).toContain(`user ${BOB} is not in conversation.allow_from of route 'oncall'`);
    await new Promise((r) => setTimeout(r, 500));
    expect(sent().length).toBe(before);
  });

  it('hands an SMS from a number the gateway never answered to the inbound route', async () => {
    const before = sent().length;
    const answer = await sms('+14155550123', 'hello');
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ status: 'accepted', route: 'sms-in' });
    await conv.gw.waitForLog('via log', 20_000);
    expect(sent().length).toBe(before);
  });

  it('continues nothing with an SMS that comes after conversation.ttl_hours', async () => {
    expect((await alert('brief', 'cert expiring')).status).toBe(202);
    await conv.waitFor("brief's answer", () => conv.delivered('brief') === 1);
    expect(sent().at(-1)!.To).toBe(CAROL);
    const before = sent().length;
    await new Promise((r) => setTimeout(r, 4_500));
    const late = await sms(CAROL, 'renew it');
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ status: 'ignored', reason: 'conversation_expired' });
    expect(conv.gw.logText()).toContain('older than conversation.ttl_hours');
    await new Promise((r) => setTimeout(r, 500));
    expect(sent().length).toBe(before);
  });
});
