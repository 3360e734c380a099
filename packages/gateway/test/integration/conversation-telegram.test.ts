// Conversations on Telegram (issue 31), end to end over real HTTP against a Bot API stand-in, on a SQLite store:
// a route's answer is delivered (the stand-in answering sendMessage with a Message); a person's reply (Telegram's
// documented "Message with a reply" Update, ids adapted: documented-payloads.ts) arrives on the Telegram inbound
// route and becomes a second run of the ORIGINAL route, whose agent (a command that echoes its prompt) sees the
// event, the first answer and the reply, and whose answer is sent to the same chat with reply_parameters quoting the
// person's message (not the bot's answer they replied to). A stranger's reply runs nothing; the conversation survives a restart on the
// same SQLite file; a reply past max_turns is ignored; a reply to a message the gateway never sent goes to its own
// route as any event.
import { expectInOrder } from '@hookwise/testing';
import { conversationHarness } from './conversation-harness';
import { startTelegramChat, type TelegramChat } from './conversation-telegram-chat';
import { TELEGRAM_DOCUMENTED_NAME } from './documented-payloads';

jest.setTimeout(90_000);

const SECRET = 'conversation-alert-secret-0123456789';
/** The secret_token given to setWebhook: Telegram sends it back in X-Telegram-Bot-Api-Secret-Token. */
const TG_SECRET = 'tg_webhook_secret-0123456789';
const CHAT = 4242;
const ALICE = 1111111;
const STRANGER = 999;

// The stand-in agent: the answer is the prompt it was given, so each run shows what the agent saw.
const conv = conversationHarness('tg', SECRET);
let tg: TelegramChat;

const config = () => ({
  platforms: {
    telegram: tg.platform,
    webhook: {
      enabled: true,
      extra: {
        routes: {
          alerts: tg.alertRoute({ max_turns: 3, ttl_hours: 1, allow_from: [ALICE] }),
          tg: tg.inboundRoute,
        },
      },
    },
  },
  agent: conv.agent,
  retry: { max_attempts: 2, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
  store: { backend: 'sqlite' },
});

const start = () => conv.start(config());

const sent = () => tg.sent();
/** Answers of 'alerts' delivered and recorded (the log line comes after the record), across restarts. */
let deliveredBefore = 0;
const delivered = () => deliveredBefore + conv.delivered('alerts');
const sentBody: TelegramChat['message'] = (r) => tg.message(r);

const alert = (title: string) => conv.alert('alerts', title, `alert-${title}`);

/** Telegram's documented "Message with a reply" (core.telegram.org/bots/webhooks): `from` replies to message `to`. */
const reply: TelegramChat['reply'] = (from, to, text) => tg.reply(from, to, text);

beforeAll(async () => {
  tg = await startTelegramChat(conv, { chat: CHAT, secret: TG_SECRET, firstMessageId: 500 });
  await start();
});

describe('conversations on Telegram, through a real gateway on SQLite', () => {
  it("continues the conversation when an allowed person replies, answering in the same chat with reply_parameters quoting the person's message", async () => {
    expect((await alert('disk full')).status).toBe(202);
    await conv.waitFor('the first answer', () => delivered() === 1);
    const first = sentBody(sent()[0]);
    expect(first).toMatchObject({ chat_id: CHAT, text: 'ECHO[Alert: disk full]' });
    expect(first.reply_parameters).toBeUndefined();

    const answer = await reply(ALICE, 500, 'why is it full?');
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ status: 'accepted', route: 'alerts', turn: 2 });
    await conv.waitFor('the second answer', () => delivered() === 2);
    const second = sentBody(sent()[1]);
    expect(second.chat_id).toBe(CHAT);
    // The answer quotes the person's question, not the bot's own message they answered.
    expect(second.reply_parameters).toEqual({ message_id: tg.lastReplyId(), allow_sending_without_reply: true });
    expect(tg.lastReplyId()).not.toBe(500);
    // The second run saw the event's prompt, the first answer and the reply, in that order.
    const text = second.text;
    expectInOrder(text, ['Alert: disk full', 'ECHO[Alert: disk full]', 'why is it full?']);
    expect(text).toContain(`Telegram user ${ALICE} (${TELEGRAM_DOCUMENTED_NAME})`);
    expect(text).toContain('turn 2 of at most 3');
  });

  it("runs nothing for a stranger's reply", async () => {
    const before = sent().length;
    const answer = await reply(STRANGER, 501, 'do something else');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'ignored', reason: 'conversation_not_allowed' });
    expect(conv.gw.logText()).toContain(`user ${STRANGER} is not in conversation.allow_from of route 'alerts'`);
    await new Promise((r) => setTimeout(r, 500));
    expect(sent().length).toBe(before);
  });

  it('survives a restart on the same SQLite file, then ignores a reply past max_turns', async () => {
    deliveredBefore = delivered();
    await conv.gw.stop();
    await start();
    const answer = await reply(ALICE, 501, 'and now?');
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ route: 'alerts', turn: 3 });
    await conv.waitFor('the third answer', () => delivered() === 3);
    const third = sentBody(sent()[2]);
    expect(third.reply_parameters).toEqual({ message_id: tg.lastReplyId(), allow_sending_without_reply: true });
    expect(third.text).toContain('why is it full?');
    expect(third.text).toContain('and now?');

    const past = await reply(ALICE, 502, 'one more?');
    expect(past.status).toBe(200);
    expect(past.body).toMatchObject({ status: 'ignored', reason: 'conversation_max_turns' });
    expect(conv.gw.logText()).toContain('the conversation has its 3 turns (conversation.max_turns)');
    await new Promise((r) => setTimeout(r, 500));
    expect(sent().length).toBe(3);
  });

  it('hands a reply to a message the gateway never sent to its own route', async () => {
    const answer = await reply(ALICE, 77, 'hello bot');
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ status: 'accepted', route: 'tg' });
    await conv.gw.waitForLog('via log', 20_000);
    expect(sent().length).toBe(3);
  });
});
