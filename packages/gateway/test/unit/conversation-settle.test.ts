// Conversations.settle: the turn a waiting reply takes when its job runs (two replies accepted at the same moment
// both expected the same turn). The end-to-end test (integration/conversation-concurrent-replies.test.ts) covers
// the next turn and the skip; this covers each branch against the records, after_limit: new_conversation included.
import { Writable } from 'node:stream';
import { createLogger } from '../../src/observe/logger';
import { MemoryMemoKV } from '../../src/stores/memory';
import { toRoute } from '../../src/routes/routes';
import { Conversations } from '../../src/conversations/conversations';
import type { PendingTurn } from '../../src/conversations/conversation-records';

const HOUR = 3_600_000;

function setup(afterLimit?: 'ignore' | 'new_conversation') {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', format: 'json', stream: new Writable({ write: (c, _e, done) => (lines.push(String(c)), done()) }) });
  const conversations = new Conversations({ memos: new MemoryMemoKV(), jobs: { get: async () => undefined }, logger });
  const route = toRoute('alerts', { secret: 's', deliver: 'telegram', conversation: { enabled: true, max_turns: 3, after_limit: afterLimit } }, 'static');
  const waiting = (turn: number): PendingTurn => ({
    conversation: 'conv-1',
    turn,
    replyTo: { platform: 'telegram', chat: '7', messageId: '500' },
    from: 'Telegram user 42 (Ann)',
    text: 'why?',
    at: Date.now(),
  });
  /** The conversation's log with `answers` answers so far. */
  const answered = (answers: number) =>
    conversations.records.saveLog({ id: 'conv-1', route: 'alerts', platform: 'telegram', chat: '7', turns: [], answers, jobs: [] }, HOUR);
  return { conversations, route, waiting, answered, lines };
}

const job = { deliveryId: 'tg:9' };

it('keeps the turn a reply expected when the conversation is still there', async () => {
  const { conversations, route, waiting, answered } = setup();
  await conversations.records.savePending('alerts', job.deliveryId, waiting(2), HOUR);
  await answered(1);
  expect(await conversations.settle(route, job)).toEqual({});
  expect(await conversations.turnOf(route, job)).toMatchObject({ conversation: 'conv-1', turn: 2 });
});

it('moves a reply to the next turn when another reply took the one it expected', async () => {
  const { conversations, route, waiting, answered, lines } = setup();
  await conversations.records.savePending('alerts', job.deliveryId, waiting(2), HOUR);
  await answered(2);
  expect(await conversations.settle(route, job)).toEqual({});
  expect(await conversations.turnOf(route, job)).toMatchObject({ conversation: 'conv-1', turn: 3 });
  expect(lines.join('')).toContain('tg:9 is turn 3 (another reply took turn 2)');
});

it('skips a reply whose conversation used its max_turns meanwhile (after_limit: ignore)', async () => {
  const { conversations, route, waiting, answered } = setup();
  await conversations.records.savePending('alerts', job.deliveryId, waiting(3), HOUR);
  await answered(3);
  expect(await conversations.settle(route, job)).toEqual({
    skip: 'conversation conv-1 used its 3 turns (conversation.max_turns) while this reply waited',
  });
});

it('starts a new conversation instead where after_limit says new_conversation', async () => {
  const { conversations, route, waiting, answered, lines } = setup('new_conversation');
  await conversations.records.savePending('alerts', job.deliveryId, waiting(3), HOUR);
  await answered(3);
  expect(await conversations.settle(route, job)).toEqual({});
  const settled = await conversations.turnOf(route, job);
  expect(settled).toMatchObject({ turn: 1, fresh: true, replyTo: { messageId: '500' } });
  expect(settled?.conversation).not.toBe('conv-1');
  // Its prompt is a new conversation's: the reply alone.
  expect(await conversations.promptFor(route, job)).toContain('This starts a new conversation');
  expect(lines.join('')).toContain(`it starts conversation ${settled?.conversation} (conversation.after_limit)`);
});

it('leaves a job that continues nothing, or starts a new conversation already, as it is', async () => {
  const { conversations, route, waiting } = setup();
  expect(await conversations.settle(route, { deliveryId: 'none' })).toEqual({});
  await conversations.records.savePending('alerts', job.deliveryId, { ...waiting(1), fresh: true }, HOUR);
  expect(await conversations.settle(route, job)).toEqual({});
  expect(await conversations.turnOf(route, job)).toMatchObject({ conversation: 'conv-1', turn: 1, fresh: true });
});
