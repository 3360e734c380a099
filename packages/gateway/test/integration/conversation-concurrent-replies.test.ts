// Two replies to one answer at the same moment, end to end on Telegram's documented payloads against a Bot API
// stand-in, SQLite store, two agent runs allowed at once. Both are accepted expecting the same turn; the jobs of one
// conversation run one at a time, and each takes the turn the conversation is at when it runs: route `pair`
// (max_turns 3) answers them as turns 2 and 3, the later run seeing the earlier reply and its answer. Route `cap`
// (max_turns 2, after_limit: ignore) answers one and skips the other, saying why.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expectInOrder } from '@hookwise/testing';
import { conversationHarness } from './conversation-harness';
import { startTelegramChat, type TelegramChat } from './conversation-telegram-chat';

jest.setTimeout(90_000);

const SECRET = 'conversation-concurrent-secret-0123456789';
const TG_SECRET = 'tg_webhook_secret-concurrent-0123456789';
const CHAT = 5454;
const ALICE = 3333333;

const conv = conversationHarness('concurrent', SECRET);
let tg: TelegramChat;

const route = (maxTurns: number) => tg.alertRoute({ max_turns: maxTurns, ttl_hours: 1, allow_from: [ALICE] });

beforeAll(async () => {
  // The echo stand-in, slowed down so that two runs started together would overlap.
  const slowAgent = join(dirname(conv.agentScript), 'slow-echo.js');
  writeFileSync(
    slowAgent,
    `let p = ''; process.stdin.on('data', (c) => (p += c)).on('end', () => setTimeout(() => process.stdout.write('ECHO[' + p + ']'), 400));\n`,
  );
  tg = await startTelegramChat(conv, { chat: CHAT, secret: TG_SECRET, firstMessageId: 800 });
  await conv.start({
    platforms: {
      telegram: tg.platform,
      webhook: {
        enabled: true,
        extra: {
          routes: {
            pair: route(3),
            cap: route(2),
            tg: tg.inboundRoute,
          },
        },
      },
    },
    agent: { runner: 'command', command: [process.execPath, slowAgent], concurrency: 2 },
    store: { backend: 'sqlite' },
  });
});

/** The answers sent for replies holding `marker`, in the order they were sent. */
const answersTo = (...markers: string[]) =>
  tg
    .sent()
    .map((r) => tg.message(r).text)
    .filter((t) => markers.some((m) => t.includes(m)) && t.includes('continues a conversation'));
const reply = (to: number, message: string) => tg.reply(ALICE, to, message);

it('runs two replies sent at once one after the other, as turns 2 and 3, the second seeing the first', async () => {
  expect((await conv.alert('pair', 'disk full', 'concurrent-1')).status).toBe(202);
  await conv.waitFor('the first answer', () => conv.delivered('pair') === 1);

  const to = tg.idOf('disk full');
  const both = await Promise.all([reply(to, 'question one'), reply(to, 'question two')]);
  // At the door both expect the turn after the conversation's one answer.
  for (const answer of both) expect(answer).toMatchObject({ status: 202, body: { route: 'pair', turn: 2 } });
  expect((both[0].body as { conversation: string }).conversation).toBe((both[1].body as { conversation: string }).conversation);

  await conv.waitFor('both replies answered', () => conv.delivered('pair') === 3);
  const [earlier, later] = answersTo('question one', 'question two');
  expect(earlier).toContain('your answer will be turn 2 of at most 3');
  expect(later).toContain('your answer will be turn 3 of at most 3');
  // The later run saw the earlier reply and its answer: the runs did not overlap.
  const [firstAsked, secondAsked] = earlier.includes('question one') ? ['question one', 'question two'] : ['question two', 'question one'];
  expect(earlier).not.toContain(secondAsked);
  expectInOrder(later, ['Alert: disk full', '--- Reply from', firstAsked, '--- New reply from', secondAsked]);
  // The earlier reply's answer (the stand-in echoes its prompt) is in its history.
  expect(later).toContain('--- Your answer ---\nECHO[This continues a conversation: your answer will be turn 2 of at most 3.');
  expect(conv.gw.logText()).toMatch(/is turn 3 \(another reply took turn 2\)/);
});

it('skips the reply whose conversation used its max_turns while it waited, and says why', async () => {
  expect((await conv.alert('cap', 'cpu hot', 'concurrent-2')).status).toBe(202);
  await conv.waitFor('the first answer', () => conv.delivered('cap') === 1);

  const to = tg.idOf('cpu hot');
  const both = await Promise.all([reply(to, 'why so hot'), reply(to, 'still hot')]);
  for (const answer of both) expect(answer).toMatchObject({ status: 202, body: { route: 'cap', turn: 2 } });

  await conv.waitFor('one answered, one skipped', () => conv.delivered('cap') === 2 && /skipped: conversation \S+ used its 2 turns/.test(conv.gw.logText()));
  await new Promise((r) => setTimeout(r, 500));
  expect(conv.delivered('cap')).toBe(2);
  const answered = answersTo('why so hot', 'still hot');
  expect(answered).toHaveLength(1);
  expect(answered[0]).toContain('your answer will be turn 2 of at most 2');
  expect(conv.gw.logText()).toMatch(/on route 'cap' skipped: conversation \S+ used its 2 turns \(conversation\.max_turns\) while this reply waited/);
});
