// The Matrix reply reader (issue 31, Source.replyOf) on the application-service transaction's own shape: what a
// reply answers, who wrote it, and the events that answer nothing (edits, other relations).
import { matrixReplyOf, matrixSource } from '../../src';

const matrixEvent = (relates: unknown, extra: Record<string, unknown> = {}) => ({
  events: [
    { type: 'm.room.member', room_id: '!r:example.org', sender: '@a:example.org', content: { membership: 'join' } },
    {
      type: 'm.room.message',
      room_id: '!r:example.org',
      sender: '@a:example.org',
      event_id: '$e',
      content: { msgtype: 'm.text', body: 'hi', 'm.relates_to': relates },
      ...extra,
    },
  ],
});

describe('matrixReplyOf', () => {
  it('reads a rich reply and a thread message, the quoted fallback left out', () => {
    expect(matrixReplyOf(matrixEvent({ 'm.in_reply_to': { event_id: '$a1' } }))).toEqual({
      to: { platform: 'matrix', chat: '!r:example.org', messageId: '$a1' },
      userId: '@a:example.org',
      from: 'Matrix user @a:example.org',
      text: 'hi',
    });
    const thread = matrixReplyOf(matrixEvent({ rel_type: 'm.thread', event_id: '$root', 'm.in_reply_to': { event_id: '$last' } }));
    expect(thread?.to.messageId).toBe('$root');
    const quoted = {
      events: [
        {
          ...matrixEvent({ 'm.in_reply_to': { event_id: '$a1' } }).events[1],
          content: { body: '> <@b:x> old\n> more\n\nnew text', 'm.relates_to': { 'm.in_reply_to': { event_id: '$a1' } } },
        },
      ],
    };
    expect(matrixReplyOf(quoted)?.text).toBe('new text');
  });

  it('answers nothing for edits, annotations, plain messages and other shapes', () => {
    expect(matrixReplyOf(matrixEvent({ rel_type: 'm.replace', event_id: '$a1' }))).toBeUndefined();
    expect(matrixReplyOf(matrixEvent({ rel_type: 'm.annotation', event_id: '$a1', key: '👍' }))).toBeUndefined();
    expect(matrixReplyOf(matrixEvent(undefined))).toBeUndefined();
    expect(matrixReplyOf({ events: 'nope' })).toBeUndefined();
    expect(matrixReplyOf({})).toBeUndefined();
  });
});

describe('the matrix source', () => {
  it('offers its reply reader to the gateway', () => {
    expect(matrixSource.create().replyOf).toBe(matrixReplyOf);
  });
});
