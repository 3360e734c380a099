// dingtalk: DingTalk custom robot (a group's webhook robot). `POST
// /robot/send?access_token=...` with `{msgtype:"text", text:{content}}` or `{msgtype:"markdown",
// markdown:{title, text}}`; the optional signing secret adds `timestamp` (ms) and `sign` to the query. The
// robot is its own target: it posts to its group, at most 20 messages a minute; beyond that DingTalk throttles
// it for 10 minutes.
import { createHmac } from 'node:crypto';
import type { DelivererConversation } from '@hookwise/core';
import {
  checkErrorCode,
  definePlatform,
  errorCodeOf,
  joinUrl,
  markdownToPlainText,
  platformOptionsSchema,
  type HttpResponse,
  type PlatformFailure,
  type PlatformOptions,
} from '@hookwise/kit/platform';

export interface CustomRobotOptions extends PlatformOptions {
  api_base: string;
  /** The robot's access_token (from its webhook URL). */
  token: string;
  /** The robot's signing secret ("SEC..."), when its security setting is "sign". */
  secret?: string;
  msgtype: 'text' | 'markdown';
  /** Markdown title (shown in the chat list and notifications); default: the answer's first line. */
  title?: string;
}

export const DEFAULT_API_BASE = 'https://oapi.dingtalk.com';
/** Answers are split at 15,000 UTF-8 bytes: the robot message size DingTalk documents for its robots. */
export const MESSAGE_LIMIT = 15000;
/** "每个机器人每分钟最多发送20条消息，如果超过20条，会限流10分钟": a throttled robot is retried after 10 minutes. */
export const THROTTLE_SECONDS = 600;
/** 20 messages a minute per robot: one every 3 seconds. */
export const ROBOT_PACE_MS = 3000;

/** base64(HMAC-SHA256(secret, "<timestamp>\n<secret>")), as the robot's "sign" security setting checks it. */
export function robotSignature(secret: string, timestampMs: number): string {
  return createHmac('sha256', secret).update(`${timestampMs}\n${secret}`).digest('base64');
}

/** The send URL; with a secret, signed at the moment it is built (DingTalk accepts one hour of clock skew). */
export function robotSendUrl(o: Pick<CustomRobotOptions, 'api_base' | 'token' | 'secret'>, now: number = Date.now()): string {
  const url = new URL(joinUrl(o.api_base, '/robot/send'));
  url.searchParams.set('access_token', o.token);
  if (o.secret) {
    url.searchParams.set('timestamp', String(now));
    url.searchParams.set('sign', robotSignature(o.secret, now));
  }
  return url.toString();
}

function markdownTitle(text: string, o: CustomRobotOptions, index: number, count: number): string {
  const first = markdownToPlainText(text.split('\n').find((line) => line.trim()) ?? '').trim();
  const base = o.title ?? (first.length > 60 ? `${first.slice(0, 59)}…` : first || 'Hookwise');
  return count > 1 ? `${base} (${index + 1}/${count})` : base;
}

export function checkRobotResponse(res: HttpResponse): PlatformFailure | undefined {
  return checkErrorCode(res, {
    codeField: 'errcode',
    messageField: 'errmsg',
    kinds: { rate_limited: [130101], auth: [310000, 300001, 300005], unavailable: [-1] },
    explanations: {
      310000:
        "The robot's security settings refused the message: a wrong signature (check platforms.dingtalk.secret and the gateway clock), a custom keyword missing from the message, or the gateway's IP outside the robot's IP allowlist",
      130101: 'The robot may send at most 20 messages per minute and is throttled for 10 minutes beyond that; retried after the throttle',
    },
    retryAfterSeconds: (_res, code) => (code === 130101 ? THROTTLE_SECONDS : undefined),
  });
}

/**
 * DingTalk answers a throttled robot's further messages with a redirect instead of errcode 130101 (reported by
 * users; not in the reference): that is the 10-minute throttle, not a configuration problem.
 */
export function robotRedirect(res: HttpResponse): PlatformFailure | undefined {
  return res.status === 302
    ? { kind: 'rate_limited', message: 'HTTP 302: the robot is throttled (more than 20 messages per minute)', retryAfterSeconds: THROTTLE_SECONDS }
    : undefined;
}

/**
 * A conversation id as DingTalk's robot messages carry it (`conversationId`, "cid" and base64, e.g.
 * `cid5DEAySu/Fk+mtMwii4NLYQ==`): the only target this deliverer takes, and only to know which conversation its
 * group is, since the robot posts to its own group whatever the target.
 */
const CONVERSATION_ID = /^cid[A-Za-z0-9+/=_-]{1,200}$/;

/**
 * Conversations. source-dingtalk reads every robot message as a reply to the latest answer in its
 * `conversationId` (DingTalk's messages name none they answer: "Receive messages", open.dingtalk.com/document/
 * orgapp/receive-message). A custom robot answers `{errcode: 0, errmsg: "ok"}` with no message id and cannot know
 * its group's conversation id, so an answer is recorded (byChat, id '') only under the conversation id the route
 * gives as deliver_extra.chat_id (`{conversationId}` of the message it answers, or a home_channel): that must be
 * the robot's own group, where the answer went. With no chat_id nothing is recorded.
 */
export const dingtalkConversation: DelivererConversation = {
  platform: 'dingtalk',
  byChat: true,
  sentRefs: ({ target }) =>
    target !== undefined && CONVERSATION_ID.test(target) ? { chat: target, refs: [{ platform: 'dingtalk', chat: target, messageId: '' }] } : undefined,
  // The answer to a reply goes to the robot's group as ever; the conversation id only records it there again.
  replyExtra: (to, extra) => ({ ...extra, chat_id: to.chat }),
};

export const dingtalkPlatform = definePlatform<CustomRobotOptions>({
  id: 'dingtalk',
  aliases: ['platform_11'],
  title: 'DingTalk',
  description: 'Sends answers to a DingTalk group through its custom robot webhook (text or markdown, optional signing).',
  limit: MESSAGE_LIMIT,
  maxParts: 5,
  paceMs: ROBOT_PACE_MS,
  limitUnit: 'utf8',
  optionsSchema: platformOptionsSchema({
    apiBase: DEFAULT_API_BASE,
    properties: {
      token: { type: 'string', minLength: 8, description: 'The robot access_token (the value after access_token= in its webhook URL).' },
      secret: { type: 'string', minLength: 8, description: 'Signing secret (SEC...) when the robot uses the "sign" security setting.' },
      msgtype: {
        type: 'string',
        enum: ['text', 'markdown'],
        default: 'markdown',
        description: 'Message type: markdown (rendered) or text (markdown stripped).',
      },
      title: { type: 'string', minLength: 1, maxLength: 100, description: 'Title of markdown messages; default: the first line of the answer.' },
    },
    required: ['token'],
  }),
  secrets: (o) => [o.token, o.secret],
  credentialsHint:
    'check platforms.dingtalk.token (the access_token of the robot webhook URL) and platforms.dingtalk.secret (group settings > Bots > the robot > Security Settings)',
  needsTarget: () => false,
  // A chat_id (or home_channel) is taken when given, only to record the answer for conversations (above); any
  // other value is sent nowhere and refused by nothing (a route's deliver_extra is shared with its other
  // destinations, so a chat_id meant for another platform must not fail this one).
  optionalTarget: true,
  targets: { format: "a DingTalk conversation id (cid..., the conversationId of a robot message in the robot's own group)", check: () => undefined },
  request: (chunk, o) => ({
    method: 'POST',
    url: robotSendUrl(o),
    headers: { 'content-type': 'application/json; charset=utf-8' },
    json:
      o.msgtype === 'text'
        ? { msgtype: 'text', text: { content: markdownToPlainText(chunk.text) } }
        : { msgtype: 'markdown', markdown: { title: markdownTitle(chunk.text, o, chunk.index, chunk.count), text: chunk.text } },
  }),
  conversation: dingtalkConversation,
  checkResponse: checkRobotResponse,
  redirect: robotRedirect,
  // The robot answers {"errcode":0,"errmsg":"ok"} for a message it posted.
  success: { describe: 'errcode 0', test: (res) => errorCodeOf(res, 'errcode') === 0 },
  async start({ logger, options }) {
    // The robot has no read-only endpoint: any call posts a message. The first delivery checks it.
    logger.info(`dingtalk (DingTalk): custom robot configured (${options.msgtype}${options.secret ? ', signed' : ''}); it is checked by the first delivery`);
  },
});
