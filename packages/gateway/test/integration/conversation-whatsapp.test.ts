// Conversations on WhatsApp (issue 31), end to end over real HTTP against a Cloud API stand-in, on a SQLite store:
// a route's answer is sent as a text message (the Messages API answers with messages[].id, the wamid); the person
// replies to it in WhatsApp, which Meta posts as a `messages` notification whose message carries context.id (that
// wamid; the webhooks reference's shape), signed with X-Hub-Signature-256 (sha256= HMAC of the body with the App
// Secret); the reply becomes a second run of the ORIGINAL route, whose agent (a command that echoes its prompt)
// sees the event, the first answer and the reply, and whose answer goes back to the same person as a contextual
// reply to their message (`context.message_id`, Meta's "Contextual replies"). Someone not in allow_from runs nothing; a message
// that replies to nothing goes to the inbound route as any event.
import { createHmac } from 'node:crypto';
import { expectInOrder, type RecordedRequest, type RecordingServer } from '@hookwise/testing';
import { conversationHarness } from './conversation-harness';

jest.setTimeout(90_000);

const SECRET = 'conversation-alert-secret-0123456789';
/** The Meta app's App Secret: Meta signs every notification with it. */
const APP_SECRET = 'whatsapp-app-secret-0123456789abcdef';
const PHONE_NUMBER_ID = '106540352242922';
const BUSINESS_NUMBER = '15550783881';
const ALICE = '16505551234';
const BOB = '16505550000';

const conv = conversationHarness('wa', SECRET);
let api: RecordingServer;
let sentCount = 0;
let inboundCount = 0;

/** A wamid as the Messages API returns them (wamid. and base64), one per sent message. */
const wamidOf = (n: number) => `wamid.HBgLMTY1MDU1NTEyMzQVAgARGBI${Buffer.from(`hookwise-answer-${n}`).toString('base64')}`;

const conversation = { enabled: true, max_turns: 3, ttl_hours: 1, allow_from: [ALICE] };
const config = (apiBase: string) => ({
  platforms: {
    whatsapp: { enabled: true, token: 'EAAGm0PX4ZCpsBAconversationtoken0123', phone_number_id: PHONE_NUMBER_ID, api_base: apiBase },
    webhook: {
      enabled: true,
      extra: {
        routes: {
          alerts: { secret: SECRET, prompt: 'Alert: {title}', deliver: 'whatsapp', deliver_extra: { chat_id: `+${ALICE}` }, conversation },
          // Bob gets this route's answers, but only Alice may continue its conversations.
          oncall: { secret: SECRET, prompt: 'Page: {title}', deliver: 'whatsapp', deliver_extra: { chat_id: BOB }, conversation },
          wa: { source: 'whatsapp', secret: APP_SECRET, prompt: 'Inbound WhatsApp message', deliver: 'log', allow_from: ['*'] },
        },
      },
    },
  },
  agent: conv.agent,
  retry: { max_attempts: 2, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
  store: { backend: 'sqlite' },
});

type SentMessage = { messaging_product: string; to: string; type: string; text: { body: string }; context?: { message_id: string } };
const sent = () => api.requests.filter((r) => r.method === 'POST' && r.path === `/v21.0/${PHONE_NUMBER_ID}/messages`);
const sentBody = (r: RecordedRequest) => r.json as SentMessage;
// WhatsApp's pair rate (one message per 6 s to a person) can hold an answer back: 30 s, not the harness's 20.
const waitFor = (what: string, check: () => boolean) => conv.waitFor(what, check, 30_000);
const alert = (route: string, title: string) => conv.alert(route, title, `${route}-${title}`);

/** The wamid of the person's n-th message. */
const personWamid = (n: number) => `wamid.HBgLMTY1MDU1NTEyMzQVAgASGBQ${Buffer.from(`person-message-${n}`).toString('base64')}`;

/**
 * A text message as Meta's webhooks reference shows it (entry[].changes[].value with metadata, contacts and
 * messages, field "messages"); with `quoting`, the message is a reply to that wamid (messages[].context).
 */
async function message(from: string, name: string, text: string, quoting?: string) {
  inboundCount += 1;
  const notification = {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: BUSINESS_NUMBER, phone_number_id: PHONE_NUMBER_ID },
              contacts: [{ profile: { name }, wa_id: from }],
              messages: [
                {
                  ...(quoting ? { context: { from: BUSINESS_NUMBER, id: quoting } } : {}),
                  from,
                  id: personWamid(inboundCount),
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  type: 'text',
                  text: { body: text },
                },
              ],
            },
            field: 'messages',
          },
        ],
      },
    ],
  };
  const body = JSON.stringify(notification);
  const signature = `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}`;
  return conv.gw.post('wa', body, { 'content-type': 'application/json', 'x-hub-signature-256': signature });
}

beforeAll(async () => {
  api = await conv.startApi((req) => {
    if (req.method === 'GET') return { json: { verified_name: 'Hookwise CI', display_phone_number: '+1 555-078-3881', id: PHONE_NUMBER_ID } };
    const to = (req.json as { to: string }).to;
    // The Messages API's documented answer: {messaging_product, contacts: [{input, wa_id}], messages: [{id}]}.
    return { json: { messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to }], messages: [{ id: wamidOf(++sentCount) }] } };
  });
  await conv.start(config(api.url));
});

describe('conversations on WhatsApp, through a real gateway on SQLite', () => {
  it('continues the conversation when an allowed person replies, answering that person with context.message_id of their message', async () => {
    expect((await alert('alerts', 'disk full')).status).toBe(202);
    await waitFor('the first answer', () => conv.delivered('alerts') === 1);
    const first = sentBody(sent()[0]);
    expect(first).toMatchObject({ messaging_product: 'whatsapp', to: ALICE, type: 'text', text: { body: 'ECHO[Alert: disk full]' } });
    expect(first.context).toBeUndefined();

    const answer = await message(ALICE, 'Sheena Nelson', 'why is it full?', wamidOf(1));
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ status: 'accepted', route: 'alerts', turn: 2 });
    // WhatsApp's pair rate (one message per 6 s to a person) spaces the second answer from the first.
    await waitFor('the second answer', () => conv.delivered('alerts') === 2);
    const second = sentBody(sent()[1]);
    expect(second.to).toBe(ALICE);
    // A contextual reply to the person's question, not to the gateway's answer they replied to.
    expect(second.context).toEqual({ message_id: personWamid(inboundCount) });
    expect(personWamid(inboundCount)).not.toBe(wamidOf(1));
    const text = second.text.body;
    expectInOrder(text, ['Alert: disk full', 'ECHO[Alert: disk full]', 'why is it full?']);
    expect(text).toContain(`WhatsApp user ${ALICE} (Sheena Nelson)`);
    expect(text).toContain('turn 2 of at most 3');
  });

  it('runs nothing when someone not in allow_from replies to an answer they got', async () => {
    expect((await alert('oncall', 'db down')).status).toBe(202);
    await waitFor("oncall's answer", () => conv.delivered('oncall') === 1);
    const page = sent().at(-1)!;
    expect(sentBody(page).to).toBe(BOB);
    const before = sent().length;
    const answer = await message(BOB, 'Bob', 'restart it', wamidOf(sentCount));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'ignored', reason: 'conversation_not_allowed' });
    expect(conv.gw.logText()).toContain(`user ${BOB} is not in conversation.allow_from of route 'oncall'`);
    await new Promise((r) => setTimeout(r, 500));
    expect(sent().length).toBe(before);
  });

  it('hands a message that replies to nothing the gateway sent to its own route', async () => {
    const before = sent().length;
    const fresh = await message(ALICE, 'Sheena Nelson', 'hello');
    expect(fresh.status).toBe(202);
    expect(fresh.body).toMatchObject({ status: 'accepted', route: 'wa' });
    const unknown = await message(ALICE, 'Sheena Nelson', 'and this?', 'wamid.HBgLMTY1MDU1NTEyMzQVAgARGBJub3QtdGhlLWdhdGV3YXlzAA==');
    expect(unknown.body).toMatchObject({ status: 'accepted', route: 'wa' });
    await conv.gw.waitForLog('via log', 20_000);
    expect(sent().length).toBe(before);
  });
});
