// The conversation step's decisions that the end-to-end tests cannot wait for (ttl_hours passing), and how an
// answer goes back through a deliverer's conversation facet. What a reply is on each platform is its source
// plugin's to say (Source.replyOf, tested there); these tests write the reply as a source would give it.
import { Writable } from 'node:stream';
import type { AcceptRequest } from '@hookwise/core';
import { createLogger } from '../../src/observe/logger';
import { MemoryMemoKV } from '../../src/stores/memory';
import { RouteTable, toRoute } from '../../src/routes/routes';
import { Conversations, replyExtra } from '../../src/conversations/conversations';
import { ConversationStep } from '../../src/conversations/conversation-replies';
import type { InboundReply } from '@hookwise/core';
import type { PipelineDeps } from '../../src/ingest/pipeline-contract';

const HOUR = 3_600_000;

function setup(afterLimit?: 'ignore' | 'new_conversation') {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', format: 'json', stream: new Writable({ write: (c, _e, done) => (lines.push(String(c)), done()) }) });
  const memos = new MemoryMemoKV();
  const conversations = new Conversations({ memos, jobs: { get: async () => undefined }, logger });
  const alerts = toRoute(
    'alerts',
    { secret: 's', deliver: 'telegram', conversation: { enabled: true, ttl_hours: 2, max_turns: 5, allow_from: [42], after_limit: afterLimit } },
    'static',
  );
  const inbound = toRoute('tg', { secret: 's', source: 'telegram', deliver: 'log' }, 'static');
  const routes = new RouteTable(
    new Map([
      ['alerts', alerts],
      ['tg', inbound],
    ]),
  );
  const deps = { routes, logger, limits: { rateLimit: 100, maxBodyBytes: 1e6, maxPending: 100 } } as unknown as PipelineDeps;
  const accepted: AcceptRequest[] = [];
  const accept = async (request: AcceptRequest) => (accepted.push(request), { outcome: 'accepted' as const, jobId: 'job-2' });
  return { step: new ConversationStep(conversations), conversations, deps, inbound, accepted, accept, lines };
}

const update = (from: number, to: number) => ({
  update_id: 1,
  message: { message_id: 9, chat: { id: 7, type: 'private' }, from: { id: from, first_name: 'Ann' }, text: 'why?', reply_to_message: { message_id: to } },
});
/** The reply source-telegram's replyOf reads from update(from, to). */
const replyOf = (from: number, to: number): InboundReply => ({
  to: { platform: 'telegram', chat: '7', messageId: String(to) },
  userId: String(from),
  from: `Telegram user ${from} (Ann)`,
  text: 'why?',
});

describe('conversation step', () => {
  it('ignores a reply past ttl_hours with the reason logged, and continues one within it', async () => {
    const { step, conversations, deps, inbound, accepted, accept, lines } = setup();
    const ref = { platform: 'telegram', chat: '7', messageId: '500' };
    await conversations.records.saveMessage(ref, { route: 'alerts', job: 'job-1', conversation: 'job-1', turn: 1, at: Date.now() - 3 * HOUR }, 4 * HOUR);
    const reply = replyOf(42, 500);
    const late = await step.continue(
      deps,
      { route: 'tg', headers: {}, body: Buffer.from('') },
      inbound,
      reply,
      '1',
      'message',
      update(42, 500),
      undefined,
      Date.now(),
      accept,
    );
    expect(late).toMatchObject({ status: 200, body: { status: 'ignored', reason: 'conversation_expired' } });
    expect(lines.join('')).toContain('older than conversation.ttl_hours (2 h)');
    expect(accepted).toEqual([]);

    await conversations.records.saveMessage(ref, { route: 'alerts', job: 'job-1', conversation: 'job-1', turn: 1, at: Date.now() - HOUR }, 4 * HOUR);
    const inTime = await step.continue(
      deps,
      { route: 'tg', headers: {}, body: Buffer.from('') },
      inbound,
      reply,
      '2',
      'message',
      update(42, 500),
      undefined,
      Date.now(),
      accept,
    );
    expect(inTime).toMatchObject({ status: 202, body: { route: 'alerts', conversation: 'job-1', turn: 2 } });
    expect(accepted.map((r) => [r.route, r.deliveryId])).toEqual([['alerts', 'tg:2']]);
    expect(await conversations.records.pending('alerts', 'tg:2')).toMatchObject({ conversation: 'job-1', turn: 2, text: 'why?', replyTo: ref });
  });

  it('leaves a message that answers nothing the gateway sent to its own route', async () => {
    const { step, deps, inbound, accept } = setup();
    const reply = replyOf(42, 12345);
    expect(
      await step.continue(deps, { route: 'tg', headers: {}, body: Buffer.from('') }, inbound, reply, '3', 'message', {}, undefined, Date.now(), accept),
    ).toBeUndefined();
  });
});

describe('after_limit: new_conversation', () => {
  it('starts a new conversation on the same route with a reply past ttl_hours or max_turns, and a prompt of its own', async () => {
    const { step, conversations, deps, inbound, accepted, accept, lines } = setup('new_conversation');
    const ref = { platform: 'telegram', chat: '7', messageId: '500' };
    await conversations.records.saveMessage(ref, { route: 'alerts', job: 'job-1', conversation: 'job-1', turn: 1, at: Date.now() - 3 * HOUR }, 4 * HOUR);
    const req = { route: 'tg', headers: {}, body: Buffer.from('') };
    const late = await step.continue(deps, req, inbound, replyOf(42, 500), '1', 'message', update(42, 500), undefined, Date.now(), accept);
    expect(late).toMatchObject({ status: 202, body: { route: 'alerts', turn: 1 } });
    const fresh = String((late?.body as Record<string, unknown>).conversation);
    expect(fresh).not.toBe('job-1');
    expect(accepted.map((r) => [r.route, r.deliveryId])).toEqual([['alerts', 'tg:1']]);
    expect(await conversations.records.pending('alerts', 'tg:1')).toMatchObject({ conversation: fresh, turn: 1, fresh: true, replyTo: ref });
    expect(lines.join('')).toContain(`it starts conversation ${fresh} (conversation.after_limit)`);
    const prompt = await conversations.promptFor(deps.routes.get('alerts')!, { deliveryId: 'tg:1' });
    expect(prompt).toContain('This starts a new conversation');
    expect(prompt).toContain('--- Message from Telegram user 42 (Ann) ---\nwhy?');
    expect(prompt).not.toContain('The event');

    // Past max_turns (the log holds 5 answers) it starts one too; a stranger is still ignored, limits or not.
    await conversations.records.saveMessage(ref, { route: 'alerts', job: 'job-1', conversation: 'job-1', turn: 5, at: Date.now() }, 4 * HOUR);
    await conversations.records.saveLog({ id: 'job-1', route: 'alerts', platform: 'telegram', chat: '7', turns: [], answers: 5, jobs: [] }, 4 * HOUR);
    const full = await step.continue(deps, req, inbound, replyOf(42, 500), '2', 'message', update(42, 500), undefined, Date.now(), accept);
    expect(full).toMatchObject({ status: 202, body: { turn: 1 } });
    const stranger = await step.continue(deps, req, inbound, replyOf(7, 500), '3', 'message', update(7, 500), undefined, Date.now(), accept);
    expect(stranger).toMatchObject({ status: 200, body: { status: 'ignored', reason: 'conversation_not_allowed' } });
    expect(accepted).toHaveLength(2);
  });
});

describe('the answer to a reply', () => {
  const telegramFacet = {
    conversation: {
      platform: 'telegram',
      replyExtra: (to: { chat: string; messageId: string }, extra: Record<string, string>) => ({ ...extra, reply_to_message_id: to.messageId }),
    },
  };
  it("goes through the facet of the destination on the conversation's platform only", () => {
    const turn = { conversation: 'c', turn: 2, replyTo: { platform: 'telegram', chat: '7', messageId: '500' }, from: 'x', text: 't', at: 0 };
    expect(replyExtra(turn, telegramFacet, { chat_id: '7' })).toEqual({ chat_id: '7', reply_to_message_id: '500' });
    // Another platform's destination, or one whose messages cannot be answered, gets its extra unchanged.
    expect(replyExtra(turn, { conversation: { ...telegramFacet.conversation, platform: 'slack' } }, { chat_id: 'C1' })).toEqual({ chat_id: 'C1' });
    expect(replyExtra(turn, {}, { chat_id: 'C1' })).toEqual({ chat_id: 'C1' });
    expect(replyExtra(undefined, telegramFacet, { chat_id: '7' })).toEqual({ chat_id: '7' });
  });

  it('goes through the destination that sent the message answered, when the route has two on that platform', async () => {
    const { conversations } = setup();
    const route = toRoute(
      'two',
      {
        secret: 's',
        deliver: [
          { to: 'telegram', extra: { chat_id: '7' } },
          { to: 'telegram', extra: { chat_id: '8' } },
        ],
        conversation: { enabled: true, allow_from: [42] },
      },
      'static',
    );
    const job = { id: 'job-1', route: 'two', deliveryId: 'd-1', prompt: 'p', receivedAt: 0 } as never;
    await conversations.delivered(route, job, 'first', telegramFacet, { target: '7', ids: ['500'] }, undefined, 'telegram');
    await conversations.delivered(route, job, 'first', telegramFacet, { target: '8', ids: ['600'] }, undefined, 'telegram#2');
    expect(await conversations.records.message({ platform: 'telegram', chat: '8', messageId: '600' })).toMatchObject({ destination: 'telegram#2' });
    const turn = {
      conversation: 'job-1',
      turn: 2,
      replyTo: { platform: 'telegram', chat: '8', messageId: '600' },
      destination: 'telegram#2',
      from: 'x',
      text: 't',
      at: 0,
    };
    expect(replyExtra(turn, telegramFacet, { chat_id: '7' }, 'telegram')).toEqual({ chat_id: '7' });
    expect(replyExtra(turn, telegramFacet, { chat_id: '8' }, 'telegram#2')).toEqual({ chat_id: '8', reply_to_message_id: '600' });
  });

  it("quotes the person's message the source named, carried from the reply through the pending turn", async () => {
    const { step, conversations, deps, inbound, accept } = setup();
    const route = deps.routes.get('alerts')!;
    const job = { id: 'job-1', route: 'alerts', deliveryId: 'd-1', prompt: 'p', receivedAt: 0 } as never;
    await conversations.delivered(route, job, 'first', telegramFacet, { target: '7', ids: ['500'] }, undefined);
    const reply = { ...replyOf(42, 500), message: { platform: 'telegram', chat: '7', messageId: '9' } };
    const result = await step.continue(deps, {} as never, inbound, reply, 'u-1', 'message', update(42, 500), undefined, Date.now(), accept);
    expect(result?.status).toBe(202);
    const turn = await conversations.records.pending('alerts', 'tg:u-1');
    expect(turn).toMatchObject({ replyTo: { messageId: '500' }, message: { platform: 'telegram', chat: '7', messageId: '9' } });
    expect(replyExtra(turn, telegramFacet, { chat_id: '7' })).toEqual({ chat_id: '7', reply_to_message_id: '9' });
    // The records of the conversation's messages are the gateway's answers only, never the person's message.
    expect(await conversations.records.message({ platform: 'telegram', chat: '7', messageId: '9' })).toBeUndefined();
    // A message in another chat than what it answers is none to quote: the answer replies to what was answered.
    const elsewhere = { ...replyOf(42, 500), message: { platform: 'telegram', chat: '8', messageId: '10' } };
    await step.continue(deps, {} as never, inbound, elsewhere, 'u-2', 'message', update(42, 500), undefined, Date.now(), accept);
    expect(replyExtra(await conversations.records.pending('alerts', 'tg:u-2'), telegramFacet, {})).toEqual({ reply_to_message_id: '500' });
  });
});
