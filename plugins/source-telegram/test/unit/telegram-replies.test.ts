// What a Telegram update is for conversations and approvals (issue 31), on the Bot API's Update shapes: a Message
// with reply_to_message (https://core.telegram.org/bots/api#message) and a CallbackQuery whose data a draft's
// inline keyboard button carried (https://core.telegram.org/bots/api#callbackquery).
import { approvalButtonData } from '@hookwise/core';
import { telegramPressAnswer, telegramPressOf, telegramReplyOf, telegramSource } from '../../src';

const JOB = '0b9f8a52-3c1d-4e6f-9a7b-1c2d3e4f5a6b';
const update = (from: number, to?: number) => ({
  update_id: 1,
  message: {
    message_id: 9,
    chat: { id: 7, type: 'private' },
    from: { id: from, is_bot: false, first_name: 'Ann' },
    date: 1700000000,
    text: 'why?',
    ...(to === undefined ? {} : { reply_to_message: { message_id: to, chat: { id: 7, type: 'private' }, date: 1699999000, text: 'the answer' } }),
  },
});
const press = (data: string) => ({
  update_id: 2,
  callback_query: { id: '4382bfdwdsb323b2d9', from: { id: 42, is_bot: false, first_name: 'Ann', username: 'ann' }, chat_instance: '-1', data },
});

describe('telegram replies and presses', () => {
  it('reads reply_to_message in the same chat, and nothing from a message that replies to none', () => {
    expect(telegramReplyOf(update(42, 500))).toEqual({
      to: { platform: 'telegram', chat: '7', messageId: '500' },
      userId: '42',
      from: 'Telegram user 42 (Ann)',
      text: 'why?',
    });
    expect(telegramReplyOf(update(42))).toBeUndefined();
    expect(telegramReplyOf({ update_id: 3, edited_message: update(42, 500).message })).toBeUndefined();
  });

  it("reads a draft button's callback_query as a press and answers it with answerCallbackQuery", () => {
    const approve = telegramPressOf(press(approvalButtonData('approve', JOB)))!;
    expect(approve).toEqual({
      jobId: JOB,
      decision: 'approve',
      presser: { platform: 'telegram', id: '42', username: 'ann' },
      answerWith: '4382bfdwdsb323b2d9',
    });
    expect(telegramPressOf(press(approvalButtonData('deny', JOB)))?.decision).toBe('deny');
    // Other buttons' data, and data naming no job id, are no press: the update goes on as any event.
    expect(telegramPressOf(press('menu:1'))).toBeUndefined();
    expect(telegramPressOf(press('hwa:a:../../etc'))).toBeUndefined();
    expect(telegramPressAnswer(approve, 'Approved.')).toEqual({
      status: 200,
      body: { method: 'answerCallbackQuery', callback_query_id: '4382bfdwdsb323b2d9', text: 'Approved.' },
    });
  });

  it('offers both readers to the gateway', () => {
    const source = telegramSource.create();
    expect([source.replyOf, source.pressOf, source.pressAnswer]).toEqual([telegramReplyOf, telegramPressOf, telegramPressAnswer]);
  });
});
