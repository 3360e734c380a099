// What a Slack payload is for conversations and approvals (issue 31), on the examples of Slack's documentation
// (kept in @hookwise/testing's fixtures/slack, ids adapted): Events API message events in a thread
// (docs.slack.dev/reference/events/message.channels with thread_ts, .../message/thread_broadcast,
// .../message/file_share, .../message/message_replied) and the block_actions interactivity payload
// (docs.slack.dev/reference/interaction-payloads/block_actions-payload).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { approvalButtonData } from '@hookwise/core';
import { FIXTURES_DIR } from '@hookwise/testing';
import { slackOwnMessage, slackPressOf, slackReplyOf, slackSenderOf, slackSource } from '../../src';

/** A documented payload; `event` and `actions[0]` are the parts a test changes. */
interface Documented extends Record<string, unknown> {
  event: Record<string, unknown>;
  user: Record<string, unknown>;
  actions: Array<Record<string, unknown>>;
}
const documented = (name: string): Documented => JSON.parse(readFileSync(join(FIXTURES_DIR, 'slack', name), 'utf8')) as Documented;

const JOB = '0b9f8a52-3c1d-4e6f-9a7b-1c2d3e4f5a6b';
const ROOT = '1355517000.000001';
/** docs' message.channels event, in the thread of ROOT. */
const threaded = (extra: Record<string, unknown> = {}): Documented => {
  const payload = documented('message.channels.event_callback.json');
  Object.assign(payload.event, { thread_ts: ROOT, parent_user_id: 'U0BOT', ...extra });
  return payload;
};
const blockActions = (value: string): Documented => {
  const payload = documented('block_actions.json');
  payload.actions[0].value = value;
  return payload;
};

describe('slack replies', () => {
  it("reads the docs' message event in a thread: the thread's root, in its channel, by its user", () => {
    expect(slackReplyOf(threaded())).toEqual({
      to: { platform: 'slack', chat: 'C123ABC456', messageId: ROOT },
      userId: 'U123ABC456',
      from: 'Slack user U123ABC456',
      text: 'Live long and prospect.',
      // The person's own message, in the thread it was written in (the answer goes into that thread).
      message: { platform: 'slack', chat: 'C123ABC456', messageId: '1355517523.000005', thread: ROOT },
    });
  });

  it('reads a thread reply also sent to the channel (thread_broadcast), as the docs show it', () => {
    expect(slackReplyOf(documented('message.thread_broadcast.event_callback.json'))).toEqual({
      to: { platform: 'slack', chat: 'C123ABC456', messageId: '1673464730.703009' },
      userId: 'U123ABC456',
      from: 'Slack user U123ABC456',
      text: 'broadcasting this reply',
      message: { platform: 'slack', chat: 'C123ABC456', messageId: '1673464745.620769', thread: '1673464730.703009' },
    });
  });

  it('reads a file shared in a thread: the docs show a person\'s file_share event with "bot_id": null', () => {
    const shared = documented('message.file_share.event_callback.json');
    Object.assign(shared.event, { subtype: 'file_share', thread_ts: '1529342000.000001' });
    expect(slackReplyOf(shared)).toMatchObject({ to: { chat: 'D0L4B9P0Q', messageId: '1529342000.000001' }, userId: 'U061F7AUR', text: 'We got one!' });
  });

  it('leaves out top-level messages, bots, edits and the message_replied notice (with or without its subtype)', () => {
    expect(slackReplyOf(documented('message.channels.event_callback.json'))).toBeUndefined();
    expect(slackReplyOf(threaded({ thread_ts: '1355517523.000005' }))).toBeUndefined(); // the thread's root itself
    expect(slackReplyOf(threaded({ bot_id: 'B123ABC456', subtype: 'bot_message' }))).toBeUndefined();
    expect(slackReplyOf(threaded({ bot_id: 'B123ABC456' }))).toBeUndefined();
    expect(slackReplyOf(threaded({ subtype: 'message_changed' }))).toBeUndefined();
    const notice = documented('message.message_replied.event_callback.json');
    expect(slackReplyOf(notice)).toBeUndefined();
    // The docs warn the Events API may send message_replied without its subtype: it names no user nor thread_ts.
    delete notice.event.subtype;
    expect(slackReplyOf(notice)).toBeUndefined();
  });
});

describe('slack presses', () => {
  it("reads the docs' block_actions payload, its button carrying a draft's value, as a press by the user who clicked", () => {
    expect(slackPressOf(blockActions(approvalButtonData('approve', JOB)))).toEqual({
      jobId: JOB,
      decision: 'approve',
      presser: { platform: 'slack', id: 'UA8RXUSPL', username: 'jtorrance' },
      // The message with the button: the docs' channel and container.message_ts.
      message: { platform: 'slack', chat: 'CBR2V3XEX', messageId: '1548261231.000200' },
    });
    expect(slackPressOf(blockActions(approvalButtonData('deny', JOB)))?.decision).toBe('deny');
  });

  it('names who wrote an event, clicked a button or ran a command; a bot names nobody', () => {
    expect(slackSenderOf(documented('message.channels.event_callback.json'))).toEqual({ id: 'U123ABC456', from: 'Slack user U123ABC456' });
    expect(slackSenderOf(blockActions(approvalButtonData('approve', JOB)))?.id).toBe('UA8RXUSPL');
    expect(slackSenderOf({ command: '/ask', user_id: 'U0COMMAND', text: 'hi' })?.id).toBe('U0COMMAND');
    const bot = documented('message.channels.event_callback.json');
    Object.assign(bot.event as Record<string, unknown>, { bot_id: 'B0BOT' });
    expect(slackSenderOf(bot)).toBeUndefined();
  });

  it("reads nothing from the docs' own button value, or without a user", () => {
    expect(slackPressOf(documented('block_actions.json'))).toBeUndefined();
    expect(slackPressOf({ ...blockActions(approvalButtonData('approve', JOB)), user: undefined })).toBeUndefined();
  });

  it("knows the app's own bot posts by the envelope's bot authorization, and nobody else's", () => {
    // The envelope's authorizations (api.slack.com/apis/events-api#authorizations): one installation, here the bot user.
    const envelope = (event: Record<string, unknown>, authorization: Record<string, unknown>) => ({
      type: 'event_callback',
      team_id: 'T123ABC456',
      api_app_id: 'A123ABC456',
      event,
      authorizations: [{ enterprise_id: null, team_id: 'T123ABC456', is_enterprise_install: false, ...authorization }],
      event_id: 'Ev123ABC456',
      event_time: 1355517523,
    });
    const botPost = { type: 'message', channel: 'C1', user: 'U0BOT', bot_id: 'B0BOT', text: 'ECHO[...]', ts: '3.000003' };
    expect(slackOwnMessage(envelope(botPost, { user_id: 'U0BOT', is_bot: true }))).toBe(true);
    // Another bot's post, a person's message, or an authorization that is no bot: not the gateway's own.
    expect(slackOwnMessage(envelope({ ...botPost, user: 'U0OTHER', bot_id: 'B0OTHER' }, { user_id: 'U0BOT', is_bot: true }))).toBe(false);
    expect(slackOwnMessage(envelope({ ...botPost, bot_id: undefined }, { user_id: 'U0BOT', is_bot: true }))).toBe(false);
    expect(slackOwnMessage(envelope(botPost, { user_id: 'U0BOT', is_bot: false }))).toBe(false);
    expect(slackOwnMessage({ type: 'event_callback', event: botPost })).toBe(false);
  });

  it('offers both readers to the gateway', () => {
    const source = slackSource.create();
    expect([source.replyOf, source.pressOf, source.ownMessage]).toEqual([slackReplyOf, slackPressOf, slackOwnMessage]);
  });
});
