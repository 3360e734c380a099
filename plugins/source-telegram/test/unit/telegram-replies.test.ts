// What a Telegram update is for conversations and approvals (issue 31), on the example updates of Telegram's own
// documentation (core.telegram.org/bots/webhooks, "Testing your bot with updates", kept in @hookwise/testing's
// fixtures/telegram): "Message with a reply" and "Callback query", ids and the button's data adapted.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { approvalButtonData } from '@hookwise/core';
import { FIXTURES_DIR } from '@hookwise/testing';
import { telegramPressAnswer, telegramPressOf, telegramReplyOf, telegramSenderOf, telegramSource } from '../../src';

/** The parts of the documented updates a test changes. */
interface Update extends Record<string, unknown> {
  update_id: number;
  message: Record<string, unknown>;
  callback_query: Record<string, unknown>;
}
const documented = (name: string): Update => JSON.parse(readFileSync(join(FIXTURES_DIR, 'telegram', name), 'utf8')) as Update;

const JOB = '0b9f8a52-3c1d-4e6f-9a7b-1c2d3e4f5a6b';
const press = (data: string): Update => {
  const update = documented('callback_query.update.json');
  update.callback_query.data = data;
  return update;
};

describe('telegram replies and presses', () => {
  it("reads the docs' reply: the message it answers, in the chat of the update's message, by its sender", () => {
    // The example's reply_to_message has no `from` and names another chat id (1111112): the chat is the message's.
    expect(telegramReplyOf(documented('reply.update.json'))).toEqual({
      to: { platform: 'telegram', chat: '1111111', messageId: '1334' },
      userId: '1111111',
      from: 'Telegram user 1111111 (Test Firstname Test Lastname)',
      text: '/start',
      // The person's own message, which the answer quotes.
      message: { platform: 'telegram', chat: '1111111', messageId: '1365' },
    });
  });

  it('reads nothing from a message that replies to none, or from an edit', () => {
    const plain = documented('reply.update.json');
    delete plain.message.reply_to_message;
    expect(telegramReplyOf(plain)).toBeUndefined();
    const edited = documented('reply.update.json');
    expect(telegramReplyOf({ update_id: edited.update_id, edited_message: edited.message })).toBeUndefined();
  });

  it('reads a caption when the reply is a photo with one', () => {
    const photo = documented('reply.update.json');
    delete photo.message.text;
    photo.message.caption = 'see the graph';
    expect(telegramReplyOf(photo)?.text).toBe('see the graph');
  });

  it("reads the docs' callback query carrying a draft button's data as a press, answered with answerCallbackQuery", () => {
    const approve = telegramPressOf(press(approvalButtonData('approve', JOB)))!;
    expect(approve).toEqual({
      jobId: JOB,
      decision: 'approve',
      presser: { platform: 'telegram', id: '1111111', username: 'Testusername' },
      answerWith: '4382bfdwdsb323b2d9',
    });
    // A press on a message the bot sent names that message (the docs' example is on an inline message: none).
    const onMessage = press(approvalButtonData('approve', JOB));
    onMessage.callback_query.message = { message_id: 77, chat: { id: -200, type: 'supergroup' }, date: 1441645600 };
    expect(telegramPressOf(onMessage)?.message).toEqual({ platform: 'telegram', chat: '-200', messageId: '77' });
    expect(telegramPressOf(press(approvalButtonData('deny', JOB)))?.decision).toBe('deny');
    // The docs' own data, other buttons' data, and data naming no job id, are no press: the update goes on as any event.
    expect(telegramPressOf(documented('callback_query.update.json'))).toBeUndefined();
    expect(telegramPressOf(press('menu:1'))).toBeUndefined();
    expect(telegramPressOf(press('hwa:a:../../etc'))).toBeUndefined();
    expect(telegramPressAnswer(approve, 'Approved.')).toEqual({
      status: 200,
      body: { method: 'answerCallbackQuery', callback_query_id: '4382bfdwdsb323b2d9', text: 'Approved.' },
    });
  });

  it("names who wrote a message or pressed a button, from the update's `from`", () => {
    const reply = documented('reply.update.json');
    const from = reply.message.from as { id: number };
    expect(telegramSenderOf(reply)).toEqual({ id: String(from.id), from: `Telegram user ${from.id} (Test Firstname Test Lastname)` });
    expect(telegramSenderOf(press(approvalButtonData('approve', JOB)))?.id).toBe('1111111');
    // A channel post names a chat, not a person.
    expect(telegramSenderOf({ update_id: 1, channel_post: { message_id: 1, chat: { id: -100, type: 'channel' }, text: 'x' } })).toBeUndefined();
  });

  it('offers both readers to the gateway', () => {
    const source = telegramSource.create();
    expect([source.replyOf, source.pressOf, source.pressAnswer]).toEqual([telegramReplyOf, telegramPressOf, telegramPressAnswer]);
  });
});
