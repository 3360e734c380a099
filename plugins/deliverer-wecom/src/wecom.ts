// wecom: WeCom (WeChat Work). App API: an access token from corp_id/corp_secret (`gettoken`), then
// `appchat/send` {chatid} for a group chat id, or `message/send` {touser|toparty|totag, agentid} for a target
// `user:<userid>` (`party:<id>`, `tag:<id>`). Or a group robot: `webhook/send?key=...`. HTTP 200 with
// `{errcode, errmsg}`; text messages are limited to 2048 bytes. A target names one user, department, tag or
// app chat: never `@all` or a `|` list, so a templated chat_id cannot broadcast to the whole company.
import { HookwiseError, type DelivererConversation } from '@hookwise/core';
import {
  checkErrorCode,
  definePlatform,
  errorCodeOf,
  issuedTokenFrom,
  joinUrl,
  platformOptionsSchema,
  type HttpRequest,
  type HttpResponse,
  type OutgoingChunk,
  type PlatformOptions,
  type ResponseVerdict,
} from '@hookwise/kit/platform';

export interface WorkApiOptions extends PlatformOptions {
  api_base: string;
  corp_id?: string;
  corp_secret?: string;
  agent_id?: number;
  webhook_key?: string;
}

export const DEFAULT_API_BASE = 'https://qyapi.weixin.qq.com';
/** WeCom truncates text content past 2048 bytes. */
export const MESSAGE_LIMIT = 2048;
const RECIPIENT_FIELDS = { user: 'touser', party: 'toparty', tag: 'totag' } as const;
/** App messages: at most 30 per minute to one member; group robots: 20 per minute. */
export const APP_PACE_MS = 2000;
export const ROBOT_PACE_MS = 3000;
/** userid: 1-64 letters, digits and _-@. ; departments and tags are numbers; app chat ids letters and digits. */
const USER_TARGET = /^user:([A-Za-z0-9_.@-]{1,64})$/;
const NUMERIC_TARGET = /^(party|tag):(\d{1,10})$/;
const APP_CHAT = /^[A-Za-z0-9]{1,32}$/;

function targetProblem(target: string): string | undefined {
  if (target.includes('|')) return 'it names several recipients ("|"); one target per route';
  const user = USER_TARGET.exec(target);
  if (user) return user[1].toLowerCase() === '@all' ? 'user:@all would message everyone in the company' : undefined;
  if (NUMERIC_TARGET.test(target) || APP_CHAT.test(target)) return undefined;
  return 'it is neither user:<userid>, party:<id>, tag:<id> nor an app chat id';
}

export function workApiRequest(chunk: OutgoingChunk, o: WorkApiOptions): HttpRequest {
  const text = { msgtype: 'text', text: { content: chunk.text } };
  if (o.webhook_key) return { method: 'POST', url: joinUrl(o.api_base, '/cgi-bin/webhook/send', { key: o.webhook_key }), json: text };
  const token = chunk.token ?? '';
  const prefixed = /^(user|party|tag):(.+)$/.exec(chunk.target);
  if (!prefixed) return { method: 'POST', url: joinUrl(o.api_base, '/cgi-bin/appchat/send', { access_token: token }), json: { chatid: chunk.target, ...text } };
  if (o.agent_id === undefined) {
    throw new HookwiseError('HW_E_CONFIG', `wecom (WeCom): sending to ${prefixed[1]}s needs platforms.wecom.agent_id (the app's AgentId)`, {
      retryable: false,
    });
  }
  const field = RECIPIENT_FIELDS[prefixed[1] as keyof typeof RECIPIENT_FIELDS];
  return {
    method: 'POST',
    url: joinUrl(o.api_base, '/cgi-bin/message/send', { access_token: token }),
    json: { [field]: prefixed[2], msgtype: 'text', agentid: o.agent_id, text: text.text },
  };
}

/** The ids of an answer's `invaliduser`/`invalidparty`/`invalidtag`/`unlicenseduser` ("a|b"). */
function listed(value: unknown): string[] {
  return typeof value === 'string' && value ? value.split('|').filter((v) => v) : [];
}

export function checkWorkApiResponse(res: HttpResponse, _options?: WorkApiOptions, request?: HttpRequest): ResponseVerdict | undefined {
  const failure = checkErrorCode(res, {
    codeField: 'errcode',
    messageField: 'errmsg',
    kinds: {
      token_expired: [40014, 42001, 41001],
      rate_limited: [45009, 45033],
      auth: [40001, 40013, 40056, 48002, 60020, 93000],
      target: [81013, 86003, 60011],
      unavailable: [-1],
    },
    explanations: {
      45009: 'WeCom API frequency limit reached',
      60020: "The gateway's IP is not among the app's trusted IPs (app settings > Enterprise trusted IP)",
      86003: 'appchat/send only reaches group chats created by this app (appchat/create); use user:<userid> for people',
      93000: 'The group robot key is invalid or the robot was removed: check platforms.wecom.webhook_key',
    },
  });
  if (failure) return failure;
  // errcode 0 still lists the recipients WeCom could not reach (message/send: "部分接收人无权限或不存在").
  const body = (res.json ?? {}) as Record<string, unknown>;
  const failed = [
    ...listed(body.invaliduser).map((id) => `user:${id}`),
    ...listed(body.invalidparty).map((id) => `party:${id}`),
    ...listed(body.invalidtag).map((id) => `tag:${id}`),
    ...listed(body.unlicenseduser).map((id) => `user:${id}`),
  ];
  if (!failed.length) return undefined;
  const message = `recipients not found, not visible to the app or without a license: ${failed.join(', ')}`;
  // The one recipient addressed is among them: nobody got it. Otherwise (a department or tag) the rest did.
  const sent = (request?.json ?? {}) as { touser?: string; toparty?: string; totag?: string };
  const addressed = sent.touser ? `user:${sent.touser}` : sent.toparty ? `party:${sent.toparty}` : sent.totag ? `tag:${sent.totag}` : undefined;
  if (addressed && failed.includes(addressed)) return { kind: 'target', message };
  return { kind: 'partial', message, failed };
}

/**
 * Conversations. source-wecom reads a person's message to the app as a reply to the latest answer to
 * that person (chat: `FromUserName`, the userid; no message id, since WeCom's callback XML names none: "消息格式",
 * developer.work.weixin.qq.com/document/path/90239). So an answer sent with message/send to `user:<userid>` is
 * recorded as that user's latest (byChat, id ''); answers to a department, a tag or an app chat, and a group
 * robot's, reach no one whose message comes back through the app's callback, and are not recorded.
 */
export const wecomConversation: DelivererConversation = {
  platform: 'wecom',
  byChat: true,
  sentRefs: ({ target }) => {
    const user = target === undefined ? null : USER_TARGET.exec(target);
    if (!user) return undefined;
    return { chat: user[1], refs: [{ platform: 'wecom', chat: user[1], messageId: '' }] };
  },
  // The answer to a reply goes to the person who wrote it, whatever the route's chat_id renders to.
  replyExtra: (to, extra) => ({ ...extra, chat_id: `user:${to.chat}` }),
};

export const wecomPlatform = definePlatform<WorkApiOptions>({
  id: 'wecom',
  aliases: ['platform_13'],
  title: 'WeCom',
  description: 'Sends answers to WeCom group chats or users through an app (access token), or through a group robot webhook.',
  limit: MESSAGE_LIMIT,
  maxParts: 5,
  paceMs: (_target, o) => (o.webhook_key ? ROBOT_PACE_MS : APP_PACE_MS),
  targets: {
    format: 'user:<userid>, party:<department id>, tag:<tag id>, or an app chat id (letters and digits): one recipient, never @all or a "|" list',
    check: (target) => targetProblem(target),
  },
  limitUnit: 'utf8',
  optionsSchema: platformOptionsSchema({
    apiBase: DEFAULT_API_BASE,
    properties: {
      corp_id: { type: 'string', minLength: 4, description: 'Corp ID (My Company > Company Information).' },
      corp_secret: { type: 'string', minLength: 8, description: 'Secret of the self-built app.' },
      agent_id: { type: 'integer', minimum: 1, description: 'AgentId of the app (needed for user:/party:/tag: targets).' },
      webhook_key: { type: 'string', minLength: 8, description: 'Key of a group robot (the key= part of its webhook URL).' },
    },
  }),
  secrets: (o) => [o.corp_secret, o.webhook_key],
  credentialsHint: 'check platforms.wecom.corp_id / corp_secret / agent_id (WeCom admin console > App Management > the app) or webhook_key',
  configProblems: (o) => {
    if (o.webhook_key || (o.corp_id && o.corp_secret)) return [];
    if (o.corp_id || o.corp_secret) return ['set both corp_id and corp_secret'];
    return ['set corp_id, corp_secret and agent_id (app) or webhook_key (group robot)'];
  },
  needsTarget: (o) => !o.webhook_key,
  needsToken: (o) => !o.webhook_key,
  async token({ call, options }) {
    const res = await call({ url: joinUrl(options.api_base, '/cgi-bin/gettoken', { corpid: options.corp_id ?? '', corpsecret: options.corp_secret ?? '' }) });
    return issuedTokenFrom(res, { token: 'access_token', expiresIn: 'expires_in' }, 'wecom (WeCom)');
  },
  request: workApiRequest,
  conversation: wecomConversation,
  checkResponse: checkWorkApiResponse,
  // message/send, appchat/send and webhook/send answer {"errcode": 0, "errmsg": "ok", ...} when they sent it.
  success: { describe: 'errcode 0', test: (res) => errorCodeOf(res, 'errcode') === 0 },
  messageId: (res) => (res.json as { msgid?: string } | undefined)?.msgid,
  async start({ call, options, logger }) {
    if (options.webhook_key) {
      logger.info('wecom (WeCom): using a group robot; it is checked by the first delivery');
      return;
    }
    await call((token) => ({ url: joinUrl(options.api_base, '/cgi-bin/get_api_domain_ip', { access_token: token ?? '' }) }));
    logger.info('wecom (WeCom): app credentials accepted');
  },
});
