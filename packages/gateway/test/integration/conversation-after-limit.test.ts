// conversation.after_limit (issue 31: "a reply after ttl_hours or max_turns is answered as the route says (ignored,
// or a new conversation)"), end to end on Telegram's documented payloads against a Bot API stand-in, SQLite store.
// Route `fresh` (max_turns 1, after_limit: new_conversation): a reply to its answer starts a new conversation whose
// run sees only the new message, answered as a reply to the message the person answered; a reply to THAT answer
// (the new conversation's one turn) starts another. Route `strict` (max_turns 1, the default after_limit: ignore):
// the same reply runs nothing.
import { conversationHarness } from './conversation-harness';
import { startTelegramChat, type TelegramChat } from './conversation-telegram-chat';

jest.setTimeout(90_000);

const SECRET = 'conversation-limit-secret-0123456789';
const TG_SECRET = 'tg_webhook_secret-limit-0123456789';
const CHAT = 4343;
const ALICE = 2222222;

const conv = conversationHarness('limit', SECRET);
let tg: TelegramChat;

const route = (extra: Record<string, unknown>) => tg.alertRoute({ max_turns: 1, ttl_hours: 1, allow_from: [ALICE], ...extra });

beforeAll(async () => {
  tg = await startTelegramChat(conv, { chat: CHAT, secret: TG_SECRET, firstMessageId: 700 });
  await conv.start({
    platforms: {
      telegram: tg.platform,
      webhook: {
        enabled: true,
        extra: {
          routes: {
            fresh: route({ after_limit: 'new_conversation' }),
            strict: route({}),
            tg: tg.inboundRoute,
          },
        },
      },
    },
    agent: conv.agent,
    store: { backend: 'sqlite' },
  });
});

const idOf = (marker: string) => tg.idOf(marker);
const reply = (to: number, text: string) => tg.reply(ALICE, to, text);

it('starts a new conversation on a reply past max_turns where after_limit says so, and ignores it where not', async () => {
  expect((await conv.alert('fresh', 'disk full', 'limit-1')).status).toBe(202);
  expect((await conv.alert('strict', 'cpu hot', 'limit-2')).status).toBe(202);
  await conv.waitFor('both first answers', () => conv.delivered('fresh') === 1 && conv.delivered('strict') === 1);

  // The first conversation of `fresh` has its one turn: the reply starts a new one on the same route.
  const first = await reply(idOf('disk full'), 'is it fixed?');
  expect(first.status).toBe(202);
  expect(first.body).toMatchObject({ route: 'fresh', turn: 1, conversation: expect.any(String) });
  await conv.waitFor('the new conversation answered', () => conv.delivered('fresh') === 2);
  const answer = tg.message(tg.sent().find((r) => tg.message(r).text.includes('is it fixed?'))!);
  expect(answer.text).toContain('This starts a new conversation');
  expect(answer.text).not.toContain('Alert: disk full');
  // The answer quotes the person's reply, not the answer they replied to.
  expect(answer.reply_parameters).toMatchObject({ message_id: tg.lastReplyId() });
  expect(conv.gw.logText()).toMatch(/is past its limits \(the conversation has its 1 turns/);

  // The new conversation is bounded too: a reply to its answer starts yet another one.
  const second = await reply(idOf('is it fixed?'), 'and now?');
  expect(second.body).toMatchObject({ route: 'fresh', turn: 1 });
  expect((second.body as { conversation: string }).conversation).not.toBe((first.body as { conversation: string }).conversation);
  await conv.waitFor('the third answer', () => conv.delivered('fresh') === 3);

  // `strict` keeps the default: the reply past max_turns is ignored, nothing runs.
  const ignored = await reply(idOf('cpu hot'), 'why?');
  expect(ignored).toMatchObject({ status: 200, body: { status: 'ignored', reason: 'conversation_max_turns' } });
  await new Promise((r) => setTimeout(r, 500));
  expect(conv.delivered('strict')).toBe(1);
});
