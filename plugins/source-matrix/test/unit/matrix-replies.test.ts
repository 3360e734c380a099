// The Matrix reply reader (issue 31, Source.replyOf) on the spec's examples (kept in @hookwise/testing's
// fixtures/matrix): an application-service transaction (PUT /_matrix/app/v1/transactions/{txnId}) holding the
// Client-Server API's rich-reply example, and one holding its thread example with the fallback for unthreaded
// clients; what a reply answers, who wrote it, the event itself (`own`), and the events that answer nothing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR } from '@hookwise/testing';
import { matrixReplyOf, matrixSenderOf, matrixSource } from '../../src';

interface Transaction extends Record<string, unknown> {
  events: Array<{ content: Record<string, unknown> } & Record<string, unknown>>;
}
const documented = (name: string): Transaction => JSON.parse(readFileSync(join(FIXTURES_DIR, 'matrix', name), 'utf8')) as Transaction;
const ROOM = '!jEsUZKDJdhlrceRyVU:example.org';
/** The rich-reply transaction with its message's content changed. */
const withContent = (content: Record<string, unknown>): Transaction => {
  const txn = documented('transaction.rich_reply.json');
  txn.events[1].content = content;
  return txn;
};

describe('matrixReplyOf', () => {
  it("reads the spec's rich reply, after the transaction's member event, with the event itself as `own`", () => {
    expect(matrixReplyOf(documented('transaction.rich_reply.json'))).toEqual({
      to: { platform: 'matrix', chat: ROOM, messageId: '$another_event' },
      userId: '@example:example.org',
      from: 'Matrix user @example:example.org',
      text: 'That sounds like a great idea!',
      own: { platform: 'matrix', chat: ROOM, messageId: '$143273582443PhrSn:example.org' },
      // The person's event, which the answer replies to.
      message: { platform: 'matrix', chat: ROOM, messageId: '$143273582443PhrSn:example.org' },
    });
  });

  it("reads the spec's thread message as answering the thread's root, not the fallback's m.in_reply_to", () => {
    expect(matrixReplyOf(documented('transaction.thread.json'))).toMatchObject({
      to: { platform: 'matrix', chat: ROOM, messageId: '$alice_hello', thread: '$alice_hello' },
      userId: '@alice:example.org',
      text: "I'm doing great! Thanks for asking.",
      own: { messageId: '$alice_reply' },
      // The answer replies to the person's event, in the thread.
      message: { messageId: '$alice_reply', thread: '$alice_hello' },
    });
    // A reply within a thread (is_falling_back false) belongs to the same thread.
    const within = documented('transaction.thread.json');
    Object.assign(within.events[0].content['m.relates_to'] as object, { is_falling_back: false });
    expect(matrixReplyOf(within)?.to.messageId).toBe('$alice_hello');
  });

  it('leaves out the quoted reply fallback older clients put before the text', () => {
    const quoted = withContent({
      msgtype: 'm.text',
      body: '> <@alice:example.org> This is the first line\n> This is the second line\n\nThis is the reply',
      'm.relates_to': { 'm.in_reply_to': { event_id: '$another_event' } },
    });
    expect(matrixReplyOf(quoted)?.text).toBe('This is the reply');
  });

  it('answers nothing for edits, annotations, plain messages and other shapes', () => {
    const edit = { msgtype: 'm.text', body: '* fixed', 'm.new_content': { msgtype: 'm.text', body: 'fixed' } };
    expect(matrixReplyOf(withContent({ ...edit, 'm.relates_to': { rel_type: 'm.replace', event_id: '$another_event' } }))).toBeUndefined();
    expect(matrixReplyOf(withContent({ 'm.relates_to': { rel_type: 'm.annotation', event_id: '$another_event', key: '👍' } }))).toBeUndefined();
    expect(matrixReplyOf(withContent({ msgtype: 'm.text', body: 'hello' }))).toBeUndefined();
    expect(matrixReplyOf({ events: 'nope' })).toBeUndefined();
    expect(matrixReplyOf({})).toBeUndefined();
  });
});

describe('matrixSenderOf', () => {
  it("names the author of the transaction's messages, beside another person's membership event", () => {
    expect(matrixSenderOf(documented('transaction.rich_reply.json'))).toEqual({ id: '@example:example.org', from: 'Matrix user @example:example.org' });
  });

  it('names nobody for messages of two people, or an empty transaction', () => {
    const txn = documented('transaction.rich_reply.json');
    const [, reply] = txn.events as Array<Record<string, unknown>>;
    (txn.events as unknown[]).push({ ...reply, sender: '@mallory:example.org', event_id: '$other' });
    expect(matrixSenderOf(txn)).toBeUndefined();
    expect(matrixSenderOf({ events: [] })).toBeUndefined();
  });
});

describe('the matrix source', () => {
  it('offers its reply reader to the gateway', () => {
    expect(matrixSource.create().replyOf).toBe(matrixReplyOf);
  });
});
