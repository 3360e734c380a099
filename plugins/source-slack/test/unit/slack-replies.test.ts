// What a Slack payload is for conversations and approvals (issue 31), on Slack's documented shapes: an Events API
// `message` event in a thread (https://api.slack.com/events/message, `thread_ts`) and an interactivity
// `block_actions` payload (https://api.slack.com/reference/interaction-payloads/block-actions).
import { approvalButtonData } from '@hookwise/core';
import { slackPressOf, slackReplyOf, slackSource } from '../../src';

const JOB = '0b9f8a52-3c1d-4e6f-9a7b-1c2d3e4f5a6b';
const event = { type: 'message', channel: 'C1', user: 'U1', text: 'more', ts: '2.000002', thread_ts: '1.000001' };
const blockActions = (value: string) => ({
  type: 'block_actions',
  user: { id: 'U0CA5', username: 'amy', name: 'amy', team_id: 'T3MDE' },
  team: { id: 'T9TK3CUKW', domain: 'example' },
  channel: { id: 'C1', name: 'ops' },
  actions: [
    { type: 'button', block_id: 'hookwise_approval', action_id: 'hookwise_approve', text: { type: 'plain_text', text: 'Approve' }, value, action_ts: '1.2' },
  ],
});

describe('slack replies and presses', () => {
  it('reads a threaded message, and leaves out bots, edits and top-level messages', () => {
    expect(slackReplyOf({ type: 'event_callback', event })).toEqual({
      to: { platform: 'slack', chat: 'C1', messageId: '1.000001' },
      userId: 'U1',
      from: 'Slack user U1',
      text: 'more',
    });
    expect(slackReplyOf({ type: 'event_callback', event: { ...event, bot_id: 'B1' } })).toBeUndefined();
    expect(slackReplyOf({ type: 'event_callback', event: { ...event, subtype: 'message_changed' } })).toBeUndefined();
    expect(slackReplyOf({ type: 'event_callback', event: { ...event, thread_ts: undefined } })).toBeUndefined();
    expect(slackReplyOf({ type: 'event_callback', event: { ...event, thread_ts: event.ts } })).toBeUndefined();
  });

  it("reads a draft button's block_actions as a press by the user who clicked", () => {
    expect(slackPressOf(blockActions(approvalButtonData('approve', JOB)))).toEqual({
      jobId: JOB,
      decision: 'approve',
      presser: { platform: 'slack', id: 'U0CA5', username: 'amy' },
    });
    expect(slackPressOf(blockActions(approvalButtonData('deny', JOB)))?.decision).toBe('deny');
    expect(slackPressOf(blockActions('something else'))).toBeUndefined();
    expect(slackPressOf({ ...blockActions(approvalButtonData('approve', JOB)), user: undefined })).toBeUndefined();
  });

  it('offers both readers to the gateway', () => {
    const source = slackSource.create();
    expect([source.replyOf, source.pressOf]).toEqual([slackReplyOf, slackPressOf]);
  });
});
