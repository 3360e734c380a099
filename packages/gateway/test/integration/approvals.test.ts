// Approvals (issue 31) end to end over real HTTP: a route with `approval:` holds its answer, its draft goes to a
// stand-in Telegram / Slack API with Approve / Deny buttons, and the platform's own button payloads (Telegram's
// documented callback_query Update, Slack's documented block_actions payload, ids adapted) arrive on routes
// with the telegram and slack sources. Approve delivers once (a second press delivers nothing more), Deny and expiry
// deliver nothing, a stranger's press changes nothing.
import type { Job } from '@hookwise/core';
import {
  routesConfig,
  postSigned,
  startRecordingServer,
  startTestGateway,
  waitFor,
  type RecordedRequest,
  type RecordingServer,
  type TestGateway,
} from '@hookwise/testing';
import { slackBlockActions, slackPosted, slackSigned, telegramCallbackQuery, telegramSentMessage } from './documented-payloads';
import { isDone, shown, until } from './worker-gateway';

jest.setTimeout(60_000);

const SECRET = 'approval-test-secret-0123456789';
const TG_SECRET = 'telegram-secret-token-abcdef';
const SLACK_SIGNING = 'slack-signing-secret-0123456789abcdef';
const APPROVER = 111;
const STRANGER = 999;

let telegram: RecordingServer;
let slack: RecordingServer;
let gw: TestGateway;
const events: string[] = [];
/** What the stand-ins answered: the message id (Telegram) or ts (Slack) they gave each message, by path and text. */
const answered: Array<{ path: string; text: string; id: string }> = [];
/** The id the stand-in gave the draft (a sendMessage or chat.postMessage) whose text holds `name`. */
const draftId = (name: string) => answered.find((a) => /sendMessage|chat\.postMessage/.test(a.path) && a.text.includes(name))!.id;
/** The edits of decided drafts (Telegram editMessageText, Slack chat.update) a stand-in received. */
const edits = (server: RecordingServer, method: string) => server.requests.filter((r) => r.path.endsWith(`/${method}`));
/** "2026-01-02T03:04:05.678Z": when a decision was made, as an edited draft says it. */
const ISO = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z';
/** The id the stand-in gave a draft whose text holds `text`: a press names the draft it is on. */
const postedId = (text: string): string => answered.find((a) => a.text.startsWith('Approval needed') && a.text.includes(text))?.id ?? 'unknown';

beforeAll(async () => {
  let message = 100;
  telegram = await startRecordingServer((req) => {
    const id = ++message;
    answered.push({ path: req.path, text: String((req.json as { text?: unknown } | undefined)?.text), id: String(id) });
    return { status: 200, json: telegramSentMessage(id, req.json) };
  });
  slack = await startRecordingServer((req) => {
    const ts = `1700000000.${++message}`;
    answered.push({ path: req.path, text: String((req.json as { text?: unknown } | undefined)?.text), id: ts });
    return { status: 200, json: slackPosted(String((req.json as { channel?: string }).channel), ts, req.json) };
  });
  const route = (extra: Record<string, unknown>) => ({ secret: SECRET, prompt: 'Ship {name}?', ...extra });
  gw = await startTestGateway({
    config: routesConfig(
      {
        held: route({
          deliver: 'telegram',
          deliver_extra: { chat_id: '-100' },
          approval: { approvers: [`telegram:${APPROVER}`, 'slack:U0SLACKOK'], via: 'telegram', chat: '-200' },
        }),
        brief: route({ deliver: 'telegram', deliver_extra: { chat_id: '-100' }, approval: { approvers: [`telegram:${APPROVER}`], expires_hours: 0.0005 } }),
        slacked: route({
          deliver: 'slack',
          deliver_extra: { chat_id: 'C0ANSWERS' },
          approval: { approvers: ['slack:U0SLACKOK'], via: 'slack', chat: 'C0APPROVE' },
        }),
        crossed: route({
          deliver: 'slack',
          deliver_extra: { chat_id: 'C0ANSWERS' },
          approval: { approvers: ['slack:U0SLACKOK', `telegram:${APPROVER}`], via: 'slack', chat: 'C0APPROVE' },
        }),
        tg: { source: 'telegram', secret: TG_SECRET, deliver: 'log', prompt: 'inbound', allow_from: [APPROVER] },
        sl: { source: 'slack', secret: SLACK_SIGNING, deliver: 'log', prompt: 'inbound', allow_from: ['U0SLACKOK'] },
      },
      {
        platforms: {
          telegram: { enabled: true, token: '123456:test-token-abcdefghij', api_base: telegram.url },
          slack: { enabled: true, token: 'xoxb-test-token-0123456789', api_base: slack.url },
        },
        agent: { runner: 'echo' },
        retry: { max_attempts: 2, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
        store: { backend: 'memory' },
        admin: { enabled: true },
      },
    ),
    pollMs: 40,
  });
  for (const name of ['approval_requested', 'approved', 'denied', 'completed'] as const) {
    gw.gateway.on(name, (e) => events.push(`${name}:${e.deliveryId}${'outcome' in e ? `:${e.outcome}` : ''}`));
  }
});
afterAll(async () => {
  await gw?.stop();
  await telegram?.close();
  await slack?.close();
});

async function send(route: string, id: string, name: string): Promise<void> {
  expect((await postSigned(gw, route, SECRET, { name }, id)).status).toBe(202);
}

const sentTo = (server: RecordingServer, chat: string): RecordedRequest[] =>
  server.requests.filter((r) => {
    const json = r.json as { chat_id?: unknown; channel?: unknown };
    return String(json?.chat_id ?? json?.channel) === chat;
  });

/** A timed-out wait shows the gateway's log. */
const waitOptions = { timeoutMs: 10_000, detail: () => `log:\n${gw.logText()}` };

/** The draft of a job, as the stand-in received it: its buttons' callback_data. */
async function telegramDraft(name: string): Promise<{ approve: string; deny: string; text: string; messageId: number }> {
  const draft = await waitFor(
    `the draft of ${name}`,
    () => sentTo(telegram, '-200').find((r) => String((r.json as { text: string }).text).includes(name)),
    waitOptions,
  );
  expect(draft.path).toBe('/bot123456:test-token-abcdefghij/sendMessage');
  const json = draft.json as { text: string; reply_markup: { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> } };
  const [approve, deny] = json.reply_markup.inline_keyboard[0];
  expect([approve.text, deny.text]).toEqual(['Approve', 'Deny']);
  return { approve: approve.callback_data, deny: deny.callback_data, text: json.text, messageId: Number(postedId(name)) };
}

let update = 10000;
/**
 * A press as Telegram posts it: its documented "Callback query" Update (documented-payloads.ts), ids adapted,
 * on message `on.messageId` of chat `on.chat` (the draft's own, in the approval chat -200, unless said otherwise).
 */
async function press(data: string, fromId: number, username: string, on: { messageId: number; chat?: number } = { messageId: 0 }) {
  const body = telegramCallbackQuery({ updateId: ++update, from: fromId, username, data, onMessage: { chat: -200, ...on } });
  return gw.post('tg', body, { 'x-telegram-bot-api-secret-token': TG_SECRET });
}

const deliveredTo100 = (name: string) => sentTo(telegram, '-100').filter((r) => String((r.json as { text: string }).text).includes(name));
const settle = () => new Promise((r) => setTimeout(r, 600)); // more than two rechecks of a held job (5 × 40 ms)

describe('approvals through Telegram buttons', () => {
  it('holds the answer, ignores a stranger, delivers once on Approve even when pressed twice', async () => {
    await send('held', 'ap-1', 'release-1');
    const draft = await telegramDraft('release-1');
    expect(draft.text).toContain('Ship release-1?');
    const waiting = await until(gw, 'ap-1', (job) => job.status === 'pending' && /waiting for approval/.test(job.note ?? ''));
    expect(waiting.answer).toContain('Ship release-1?');

    const stranger = await press(draft.approve, STRANGER, 'mallory', { messageId: draft.messageId });
    expect(stranger.status).toBe(200);
    expect(stranger.body).toMatchObject({ method: 'answerCallbackQuery', text: expect.stringContaining('not an approver') });
    await settle();
    expect(deliveredTo100('release-1')).toHaveLength(0);
    expect((await shown(gw, 'ap-1')).status).not.toBe('done');
    expect(gw.logText()).toMatch(/telegram:999 \(mallory\) pressed approve but is not an approver; nothing changed/);

    const approved = await press(draft.approve, APPROVER, 'alice', { messageId: draft.messageId });
    expect(approved.body).toMatchObject({ method: 'answerCallbackQuery', callback_query_id: expect.any(String), text: expect.stringContaining('Approved') });
    const again = await press(draft.approve, APPROVER, 'alice', { messageId: draft.messageId });
    expect(again.body).toMatchObject({ text: expect.stringContaining('Already approved') });
    const done = await until(gw, 'ap-1', isDone);
    expect(done).toMatchObject({ status: 'done' });
    expect(done.outcome ?? 'delivered').toBe('delivered');
    await settle();
    expect(deliveredTo100('release-1')).toHaveLength(1);
    expect(events).toEqual(expect.arrayContaining(['approval_requested:ap-1', 'approved:ap-1', 'completed:ap-1:delivered']));

    // The draft now shows the decision, who made it and when, and no buttons (editMessageText without reply_markup).
    const [edit] = edits(telegram, 'editMessageText');
    expect(edits(telegram, 'editMessageText')).toHaveLength(1);
    expect(edit.path).toBe('/bot123456:test-token-abcdefghij/editMessageText');
    expect(edit.json).toEqual({ chat_id: -200, message_id: Number(draftId('release-1')), text: expect.any(String) });
    const text = (edit.json as { text: string }).text;
    expect(text).toMatch(new RegExp(`^Approved by telegram:111 \\(alice\\) at ${ISO}: route held, event ap-1; the answer is delivered\\.\\n\\n`));
    expect(text).toContain('Ship release-1?');
  });

  it('Deny ends the job as denied and delivers nothing; a later Approve changes nothing', async () => {
    await send('held', 'ap-2', 'release-2');
    const draft = await telegramDraft('release-2');
    expect((await press(draft.deny, APPROVER, 'alice', { messageId: draft.messageId })).body).toMatchObject({ text: expect.stringContaining('Denied') });
    const done = await until(gw, 'ap-2', isDone);
    expect(done).toMatchObject({ status: 'done', outcome: 'denied', note: expect.stringContaining('denied by telegram:111 (alice)') });
    expect((await press(draft.approve, APPROVER, 'alice', { messageId: draft.messageId })).body).toMatchObject({
      text: expect.stringContaining('Already denied'),
    });
    await settle();
    expect(deliveredTo100('release-2')).toHaveLength(0);
    // Edited once, to the denial: the later press changed nothing, so it edits nothing.
    const denials = edits(telegram, 'editMessageText').filter((r) => (r.json as { message_id: number }).message_id === Number(draftId('release-2')));
    expect(denials).toHaveLength(1);
    expect((denials[0].json as { text: string }).text).toMatch(
      new RegExp(`^Denied by telegram:111 \\(alice\\) at ${ISO}: route held, event ap-2; nothing is delivered\\.`),
    );
    expect(denials[0].json).not.toHaveProperty('reply_markup');
    expect(events).toEqual(expect.arrayContaining(['denied:ap-2', 'completed:ap-2:denied']));
  });

  it('an unanswered approval expires: done as expired, nothing delivered, no draft without via', async () => {
    await send('brief', 'ap-3', 'release-3');
    const done: Job = await until(gw, 'ap-3', isDone, 15_000);
    expect(done).toMatchObject({ status: 'done', outcome: 'expired', note: expect.stringContaining('expired') });
    expect(deliveredTo100('release-3')).toHaveLength(0);
    expect(telegram.requests.filter((r) => r.body.includes('release-3'))).toHaveLength(0);
  });

  it('a callback_query that is no approval goes on as an event of its route', async () => {
    const answer = await press('some-other-button', APPROVER, 'alice');
    expect(answer.status).toBe(202);
  });
});

/** A press as Slack posts it: its documented block_actions payload, form-encoded, signed v0 (checked with @slack/bolt). */
function slackPress(action: { action_id: string; value: string }, userId: string, on: { messageTs: string; channel?: string }) {
  const body = slackBlockActions({
    value: action.value,
    actionId: action.action_id,
    userId,
    username: userId === 'U0SLACKOK' ? 'bob' : 'eve',
    channel: on.channel ?? 'C0APPROVE',
    messageTs: on.messageTs,
  });
  return gw.post('sl', body, slackSigned(SLACK_SIGNING, body, 'application/x-www-form-urlencoded'));
}

describe('approvals through Slack buttons', () => {
  it('posts Block Kit buttons; a stranger changes nothing; Approve delivers once', async () => {
    await send('slacked', 'ap-s1', 'release-s1');
    const draft = await waitFor('the Slack draft', () => sentTo(slack, 'C0APPROVE').find((r) => r.body.includes('release-s1')), waitOptions);
    expect(draft.path).toBe('/api/chat.postMessage');
    expect(draft.headers.authorization).toBe('Bearer xoxb-test-token-0123456789');
    const blocks = (draft.json as { blocks: Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }> }).blocks;
    const buttons = blocks.find((b) => b.type === 'actions')!.elements!;
    const [approve, deny] = buttons;
    expect(deny.action_id).toBe('hookwise_deny');

    const stranger = await slackPress(approve, 'U0STRANGER', { messageTs: postedId('release-s1') });
    expect(stranger.status).toBe(200);
    await settle();
    expect(sentTo(slack, 'C0ANSWERS')).toHaveLength(0);

    expect((await slackPress(approve, 'U0SLACKOK', { messageTs: postedId('release-s1') })).status).toBe(200);
    expect((await slackPress(approve, 'U0SLACKOK', { messageTs: postedId('release-s1') })).status).toBe(200);
    const s1 = await until(gw, 'ap-s1', isDone);
    expect(s1).toMatchObject({ status: 'done', errors: [] });
    await settle();
    expect(sentTo(slack, 'C0ANSWERS').filter((r) => r.body.includes('release-s1'))).toHaveLength(1);

    // The draft is updated in place (chat.update on its channel and ts) to the decision, its blocks without buttons.
    const updates = edits(slack, 'chat.update');
    expect(updates).toHaveLength(1);
    expect(updates[0].headers.authorization).toBe('Bearer xoxb-test-token-0123456789');
    const update = updates[0].json as { channel: string; ts: string; text: string; blocks: Array<{ type: string; text?: { type: string; text: string } }> };
    expect([update.channel, update.ts]).toEqual(['C0APPROVE', draftId('release-s1')]);
    expect(update.text).toMatch(new RegExp(`^Approved by slack:U0SLACKOK \\(bob\\) at ${ISO}: route slacked, event ap-s1`));
    expect(update.blocks).toEqual([{ type: 'section', text: { type: 'mrkdwn', text: update.text } }]);
  });

  it('Deny delivers nothing', async () => {
    await send('slacked', 'ap-s2', 'release-s2');
    const draft = await waitFor('the Slack draft', () => sentTo(slack, 'C0APPROVE').find((r) => r.body.includes('release-s2')), waitOptions);
    const deny = (draft.json as { blocks: Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }> }).blocks.find(
      (b) => b.type === 'actions',
    )!.elements![1];
    expect((await slackPress(deny, 'U0SLACKOK', { messageTs: postedId('release-s2') })).status).toBe(200);
    expect(await until(gw, 'ap-s2', isDone)).toMatchObject({ status: 'done', outcome: 'denied' });
    await settle();
    expect(sentTo(slack, 'C0ANSWERS').filter((r) => r.body.includes('release-s2'))).toHaveLength(0);
  });
});

describe('a press counts only on the draft it was given', () => {
  it("refuses a listed approver's press on another platform, in another chat or on another message; the draft's own press decides", async () => {
    await send('crossed', 'ap-x1', 'release-x1');
    const draft = await waitFor('the Slack draft', () => sentTo(slack, 'C0APPROVE').find((r) => r.body.includes('release-x1')), waitOptions);
    const [approve] = (draft.json as { blocks: Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }> }).blocks.find(
      (b) => b.type === 'actions',
    )!.elements!;
    const ts = postedId('release-x1');
    expect(ts).toMatch(/^1700000000\.\d+$/);

    // The Slack draft's button data, sent back by a Telegram approver from a Telegram chat the draft never went to.
    const elsewhere = await press(approve.value, APPROVER, 'alice', { messageId: 555, chat: -999 });
    expect(elsewhere.body).toMatchObject({ method: 'answerCallbackQuery', text: expect.stringContaining('not an approver') });
    // The Slack approver, in another channel, then on another message of the approval channel.
    expect((await slackPress(approve, 'U0SLACKOK', { messageTs: ts, channel: 'C0ELSEWHERE' })).status).toBe(200);
    expect((await slackPress(approve, 'U0SLACKOK', { messageTs: '1700000000.999999' })).status).toBe(200);
    await settle();
    expect(sentTo(slack, 'C0ANSWERS').filter((r) => r.body.includes('release-x1'))).toHaveLength(0);
    expect((await shown(gw, 'ap-x1')).status).not.toBe('done');
    expect(gw.logText()).toMatch(
      /telegram:111 \(alice\) pressed approve on telegram chat -999 message 555, not on the draft \(posted to slack chat C0APPROVE\); nothing changed/,
    );
    expect(gw.logText()).toMatch(/slack:U0SLACKOK \(bob\) pressed approve on slack chat C0ELSEWHERE message 1700000000\.\d+, not on the draft/);
    expect(gw.logText()).toMatch(/slack:U0SLACKOK \(bob\) pressed approve on slack chat C0APPROVE message 1700000000\.999999, not on the draft/);

    expect((await slackPress(approve, 'U0SLACKOK', { messageTs: ts })).status).toBe(200);
    expect(await until(gw, 'ap-x1', isDone)).toMatchObject({ status: 'done', errors: [] });
    await settle();
    expect(sentTo(slack, 'C0ANSWERS').filter((r) => r.body.includes('release-x1'))).toHaveLength(1);
  });

  it('a Telegram press on another message of the approval chat changes nothing', async () => {
    await send('held', 'ap-x2', 'release-x2');
    const draft = await telegramDraft('release-x2');
    const other = await press(draft.approve, APPROVER, 'alice', { messageId: draft.messageId + 1000 });
    expect(other.body).toMatchObject({ text: expect.stringContaining('not an approver') });
    await settle();
    expect((await shown(gw, 'ap-x2')).status).not.toBe('done');
    expect((await press(draft.approve, APPROVER, 'alice', { messageId: draft.messageId })).body).toMatchObject({ text: expect.stringContaining('Approved') });
  });
});

describe('approvers are pinned to a platform', () => {
  it('refuses at startup an approver written without a platform, naming the entry to write', async () => {
    const started = startTestGateway({
      config: routesConfig(
        {
          held: {
            secret: SECRET,
            prompt: 'Ship {name}?',
            deliver: 'log',
            approval: { approvers: ['alice', 'slack:U0SLACKOK'], via: 'slack', chat: 'C0APPROVE' },
          },
        },
        {
          platforms: { slack: { enabled: true, token: 'xoxb-test-token-0123456789', api_base: slack.url } },
          agent: { runner: 'echo' },
          store: { backend: 'memory' },
        },
      ),
    });
    await expect(started).rejects.toThrow(
      /route 'held': approval.approvers entry 'alice' names no platform.*write it as <platform>:<user id>, e\.g\. 'slack:alice'/,
    );
  });
});
