// The platforms' payloads for the conversation and approval tests (issue 31), built from each platform's own
// documented examples (@hookwise/testing's fixtures; its README names the page each one is copied from) with only
// ids, names and texts adapted, and the stand-in platforms' answers likewise. Requests are signed as the platform
// signs them; where the platform's SDK signs (GitHub: @octokit/webhooks-methods) it makes the signature, where it
// only verifies (Slack: @slack/bolt's isValidSlackRequest) it checks ours before it is sent. Telegram (a
// secret_token header) and Matrix (the hs_token as a Bearer token) sign nothing and have no such SDK.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isValidSlackRequest } from '@slack/bolt';
import { FIXTURES_DIR, githubFixture, runEsm } from '@hookwise/testing';

type Json = Record<string, unknown>;
/** A documented example, parsed afresh each time (tests change their copy). */
const documented = <T extends Json>(platform: string, name: string): T => JSON.parse(readFileSync(join(FIXTURES_DIR, platform, name), 'utf8')) as T;
const objectAt = (value: Json, ...path: string[]): Json => path.reduce((at, key) => at[key] as Json, value);

// --- Telegram -----------------------------------------------------------------------------------------------------

export interface TelegramReply {
  updateId: number;
  messageId: number;
  chat: number;
  from: number;
  /** The message it replies to. */
  to: number;
  text: string;
}

/** core.telegram.org/bots/webhooks "Message with a reply", as a JSON body: `from` replies to `to` in `chat`. */
export function telegramReply(reply: TelegramReply): string {
  const update = documented<{ update_id: number; message: Json }>('telegram', 'reply.update.json');
  update.update_id = reply.updateId;
  Object.assign(update.message, { message_id: reply.messageId, text: reply.text });
  objectAt(update.message, 'chat').id = reply.chat;
  objectAt(update.message, 'from').id = reply.from;
  Object.assign(objectAt(update.message, 'reply_to_message'), { message_id: reply.to });
  objectAt(update.message, 'reply_to_message', 'chat').id = reply.chat;
  return JSON.stringify(update);
}

/** The same example without its reply_to_message: a plain message `from` writes in `chat` (a person messaging the bot). */
export function telegramMessage(message: { updateId: number; messageId: number; chat: number; from: number; text: string }): string {
  const update = documented<{ update_id: number; message: Json }>('telegram', 'reply.update.json');
  update.update_id = message.updateId;
  delete update.message.reply_to_message;
  Object.assign(update.message, { message_id: message.messageId, text: message.text });
  objectAt(update.message, 'chat').id = message.chat;
  objectAt(update.message, 'from').id = message.from;
  return JSON.stringify(update);
}

/** The name Telegram's example gives the person (first and last name), as the reply's `from` reads it. */
export const TELEGRAM_DOCUMENTED_NAME = 'Test Firstname Test Lastname';

/**
 * The same page's "Callback query", as a JSON body: `from` (with `username`) pressed a button carrying `data`. The
 * example is a press on an inline-mode message (`inline_message_id`); `onMessage` makes it a press on a message the
 * bot sent, as core.telegram.org/bots/api#callbackquery documents it: `message` (that message) and `chat_instance`.
 */
export function telegramCallbackQuery(press: {
  updateId: number;
  from: number;
  username: string;
  data: string;
  onMessage?: { messageId: number; chat: number };
}): string {
  const update = documented<{ update_id: number; callback_query: Json }>('telegram', 'callback_query.update.json');
  update.update_id = press.updateId;
  Object.assign(update.callback_query, { id: `4382bfdwdsb323b2d9${press.updateId}`, data: press.data });
  Object.assign(objectAt(update.callback_query, 'from'), { id: press.from, username: press.username });
  if (press.onMessage) {
    delete update.callback_query.inline_message_id;
    const chat = { id: press.onMessage.chat, title: 'Approvals', type: 'supergroup' };
    Object.assign(update.callback_query, {
      message: {
        message_id: press.onMessage.messageId,
        from: { id: 123456, is_bot: true, first_name: 'Hookwise', username: 'hw_bot' },
        chat,
        date: 1441645600,
        text: 'Approval needed',
      },
      chat_instance: '-8815151651161196180',
    });
  }
  return JSON.stringify(update);
}

/**
 * A Bot API answer to sendMessage: `{ok: true, result: Message}` (core.telegram.org/bots/api#making-requests). The
 * Bot API shows no example answer, so the Message has the fields its reference marks required (message_id, date,
 * chat with id and type) and those a sent text has (from: the bot, text).
 */
export function telegramSentMessage(messageId: number, request: unknown): Json {
  const sent = (request ?? {}) as { chat_id?: number | string; text?: string };
  const chatId = Number(sent.chat_id);
  const chat =
    chatId > 0
      ? { id: chatId, first_name: 'Test Firstname', username: 'Testusername', type: 'private' }
      : { id: chatId, title: 'Approvals', type: 'supergroup' };
  return {
    ok: true,
    result: {
      message_id: messageId,
      from: { id: 123456, is_bot: true, first_name: 'Hookwise', username: 'hw_bot' },
      chat,
      date: 1441645600,
      text: sent.text ?? '',
    },
  };
}

// --- Slack --------------------------------------------------------------------------------------------------------

/**
 * docs.slack.dev's message.channels example in its Events API wrapper, as a JSON body: `user` writes `text` in the
 * thread of `threadTs` in `channel` (a reply in a thread is that message with thread_ts, per Slack's threading
 * docs). `extra` sets other event fields (a bot's message: bot_id).
 */
export function slackThreadMessage(message: { n: number; channel: string; user?: string; threadTs: string; text: string; extra?: Json }): string {
  const payload = documented<{ event: Json; event_id: string; event_time: number }>('slack', 'message.channels.event_callback.json');
  const ts = `1700000100.${String(message.n).padStart(6, '0')}`;
  Object.assign(payload.event, {
    channel: message.channel,
    user: message.user,
    text: message.text,
    ts,
    event_ts: ts,
    thread_ts: message.threadTs,
    ...message.extra,
  });
  payload.event_id = `Ev0CONV${message.n}`;
  payload.event_time = 1700000100;
  return JSON.stringify(payload);
}

/** docs.slack.dev's block_actions example, its button carrying `value`, pressed by `userId`, form-encoded as Slack posts it. */
export function slackBlockActions(press: { value: string; actionId: string; userId: string; username: string; channel: string; messageTs: string }): string {
  const payload = documented<Json & { actions: Json[] }>('slack', 'block_actions.json');
  Object.assign(objectAt(payload, 'user'), { id: press.userId, username: press.username });
  Object.assign(objectAt(payload, 'container'), { message_ts: press.messageTs, channel_id: press.channel });
  objectAt(payload, 'channel').id = press.channel;
  Object.assign(payload.actions[0], { value: press.value, action_id: press.actionId });
  payload.trigger_id = `${Date.now()}.333649436676.d8c1bb837935619ccad0f624c448ffb3`;
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** docs.slack.dev's message.channels example in its Events API wrapper: `user` writes `text` in `channel` (no thread). */
export function slackChannelMessage(message: { n: number; channel: string; user: string; text: string }): string {
  const payload = documented<{ event: Json; event_id: string; event_time: number }>('slack', 'message.channels.event_callback.json');
  const ts = `1700000200.${String(message.n).padStart(6, '0')}`;
  Object.assign(payload.event, { channel: message.channel, user: message.user, text: message.text, ts, event_ts: ts });
  payload.event_id = `Ev0SENDER${message.n}`;
  return JSON.stringify(payload);
}

/**
 * The headers of a request Slack signs (v0: HMAC-SHA256 of `v0:{timestamp}:{body}` with the signing secret), checked
 * with @slack/bolt's own verification before it is sent: a signature Slack's SDK refuses is no test of the source.
 */
export function slackSigned(signingSecret: string, body: string, contentType = 'application/json'): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  if (!isValidSlackRequest({ signingSecret, body, headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp } })) {
    throw new Error('the test signed a Slack request that @slack/bolt refuses');
  }
  return { 'content-type': contentType, 'x-slack-signature': signature, 'x-slack-request-timestamp': String(timestamp) };
}

/** docs.slack.dev's chat.postMessage example answer, for the message posted to `channel` at `ts`. */
export function slackPosted(channel: string, ts: string, request: unknown): Json {
  const answer = documented<Json & { message: Json }>('slack', 'chat.postMessage.answer.json');
  Object.assign(answer, { channel, ts });
  Object.assign(answer.message, { ts, text: (request as { text?: string } | undefined)?.text ?? '' });
  return answer;
}

// --- Matrix -------------------------------------------------------------------------------------------------------

interface MatrixEvent extends Json {
  content: Json;
}

/**
 * The Application Service API's transaction example holding the spec's rich-reply example: `sender` answers
 * `inReplyTo` in `room` with `body`, as event `eventId`. `relatesTo` replaces the relation (an edit, a thread).
 */
export function matrixTransaction(message: { room: string; sender: string; eventId: string; inReplyTo: string; body: string; relatesTo?: Json }): string {
  const txn = documented<{ events: MatrixEvent[] }>('matrix', 'transaction.rich_reply.json');
  const [member, reply] = txn.events;
  member.room_id = message.room;
  Object.assign(reply, { room_id: message.room, sender: message.sender, event_id: message.eventId });
  reply.content.body = message.body;
  reply.content['m.relates_to'] = message.relatesTo ?? { 'm.in_reply_to': { event_id: message.inReplyTo } };
  return JSON.stringify(txn);
}

/** The same transaction holding the spec's thread example: `sender` writes in the thread of `root`, falling back to a reply to `inReplyTo`. */
export function matrixThreadTransaction(message: { room: string; sender: string; eventId: string; root: string; inReplyTo: string; body: string }): string {
  const txn = documented<{ events: MatrixEvent[] }>('matrix', 'transaction.thread.json');
  const [event] = txn.events;
  Object.assign(event, { room_id: message.room, sender: message.sender, event_id: message.eventId });
  event.content.body = message.body;
  Object.assign(event.content['m.relates_to'] as Json, { event_id: message.root, 'm.in_reply_to': { event_id: message.inReplyTo } });
  return JSON.stringify(txn);
}

/** The 200 example of PUT /_matrix/client/v3/rooms/{roomId}/send/{eventType}/{txnId}, naming `eventId`. */
export function matrixSent(eventId: string): Json {
  return { ...documented('matrix', 'room_send.answer.json'), event_id: eventId };
}

// --- GitHub -------------------------------------------------------------------------------------------------------

const GITHUB_REPO_FIELDS = (repo: string): Json => {
  const [owner, name] = repo.split('/');
  return { name, full_name: repo, owner: { login: owner } };
};

/** octokit/webhooks' pull_request (opened) example, as a JSON body, for pull request `number` of `repo`. */
export function githubPullRequestOpened(repo: string, number: number, title: string): string {
  const payload = JSON.parse(githubFixture('pull_request.opened').toString('utf8')) as Json & { pull_request: Json; repository: Json };
  payload.number = number;
  Object.assign(payload.pull_request, { number, title, html_url: `https://github.com/${repo}/pull/${number}` });
  const repository = GITHUB_REPO_FIELDS(repo);
  Object.assign(objectAt(payload.repository, 'owner'), repository.owner);
  Object.assign(payload.repository, { name: repository.name, full_name: repository.full_name });
  return JSON.stringify(payload);
}

/**
 * octokit/webhooks' issue_comment (created) example on a pull request, as a JSON body: `login` (a `type` account,
 * `association` to the repository) comments `body` on pull request `number` of `repo`, as comment `commentId`.
 */
export function githubPrComment(comment: {
  repo: string;
  number: number;
  login: string;
  type?: string;
  association: string;
  body: string;
  commentId: number;
}): string {
  const payload = JSON.parse(githubFixture('issue_comment.created.pull_request').toString('utf8')) as Json & {
    issue: Json;
    comment: Json;
    repository: Json;
    sender: Json;
  };
  const pr = `https://github.com/${comment.repo}/pull/${comment.number}`;
  Object.assign(payload.issue, { number: comment.number, html_url: pr });
  Object.assign(objectAt(payload.issue, 'pull_request'), { html_url: pr, url: `https://api.github.com/repos/${comment.repo}/pulls/${comment.number}` });
  const user = { login: comment.login, type: comment.type ?? 'User' };
  Object.assign(payload.comment, {
    id: comment.commentId,
    html_url: `${pr}#issuecomment-${comment.commentId}`,
    body: comment.body,
    author_association: comment.association,
  });
  Object.assign(objectAt(payload.comment, 'user'), user);
  Object.assign(payload.sender, user);
  const repository = GITHUB_REPO_FIELDS(comment.repo);
  Object.assign(objectAt(payload.repository, 'owner'), repository.owner);
  Object.assign(payload.repository, { name: repository.name, full_name: repository.full_name });
  return JSON.stringify(payload);
}

/** X-Hub-Signature-256 of `body`, made by GitHub's own @octokit/webhooks-methods `sign` (ESM only: a child process). */
export function githubSigned(secret: string, body: string): string {
  return runEsm('@octokit/webhooks-methods', ['sign'], 'sign(args.secret, args.body)', { secret, body });
}

/** docs.github.com's example answer of Create an issue comment (201), for comment `id` on pull request `number` of `repo`. */
export function githubCommentCreated(repo: string, number: number, id: number, body: string): Json {
  const answer = JSON.parse(githubFixture('issue_comment.rest').toString('utf8')) as Json;
  return {
    ...answer,
    id,
    url: `https://api.github.com/repos/${repo}/issues/comments/${id}`,
    html_url: `https://github.com/${repo}/pull/${number}#issuecomment-${id}`,
    issue_url: `https://api.github.com/repos/${repo}/issues/${number}`,
    body,
  };
}
