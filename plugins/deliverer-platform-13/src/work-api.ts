// platform_13: WeCom (WeChat Work). App API: an access token from corp_id/corp_secret (`gettoken`), then
// `appchat/send` {chatid} for a group chat id, or `message/send` {touser|toparty|totag, agentid} for a target
// `user:<userid>` (`party:<id>`, `tag:<id>`). Or a group robot: `webhook/send?key=...`. HTTP 200 with
// `{errcode, errmsg}`; text messages are limited to 2048 bytes.
import { HookwiseError } from '@hookwise/core';
import { checkErrorCode, definePlatform, issuedTokenFrom, joinUrl, platformOptionsSchema, type HttpRequest, type HttpResponse, type OutgoingChunk, type PlatformFailure, type PlatformOptions } from '@hookwise/kit';

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


export function workApiRequest(chunk: OutgoingChunk, o: WorkApiOptions): HttpRequest {
  const text = { msgtype: 'text', text: { content: chunk.text } };
  if (o.webhook_key) return { method: 'POST', url: joinUrl(o.api_base, '/cgi-bin/webhook/send', { key: o.webhook_key }), json: text };
  const token = chunk.token ?? '';
  const prefixed = /^(user|party|tag):(.+)$/.exec(chunk.target);
  if (!prefixed) return { method: 'POST', url: joinUrl(o.api_base, '/cgi-bin/appchat/send', { access_token: token }), json: { chatid: chunk.target, ...text } };
  if (o.agent_id === undefined) {
    throw new HookwiseError('HW_E_CONFIG', `platform_13 (WeCom): sending to ${prefixed[1]}s needs platforms.platform_13.agent_id (the app's AgentId)`, { retryable: false });
  }
  const field = RECIPIENT_FIELDS[prefixed[1] as keyof typeof RECIPIENT_FIELDS];
  return { method: 'POST', url: joinUrl(o.api_base, '/cgi-bin/message/send', { access_token: token }), json: { [field]: prefixed[2], msgtype: 'text', agentid: o.agent_id, text: text.text } };
}

export function checkWorkApiResponse(res: HttpResponse): PlatformFailure | undefined {
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
      93000: 'The group robot key is invalid or the robot was removed: check platforms.platform_13.webhook_key',
    },
  });
  if (failure) return failure;
  // errcode 0 with some recipients unknown: nobody we meant got the message.
  const body = res.json as { invaliduser?: string; invalidparty?: string; invalidtag?: string } | undefined;
  const invalid = [body?.invaliduser, body?.invalidparty, body?.invalidtag].filter((v) => v);
  return invalid.length ? { kind: 'target', message: `recipients not found or not visible to the app: ${invalid.join(', ')}` } : undefined;
}

export const workApiPlatform = definePlatform<WorkApiOptions>({
  id: 'platform_13',
  title: 'WeCom',
  description: 'Sends answers to WeCom group chats or users through an app (access token), or through a group robot webhook.',
  limit: MESSAGE_LIMIT,
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
  credentialsHint: 'check platforms.platform_13.corp_id / corp_secret / agent_id (WeCom admin console > App Management > the app) or webhook_key',
  configProblems: (o) => {
    if (o.webhook_key || (o.corp_id && o.corp_secret)) return [];
    if (o.corp_id || o.corp_secret) return ['set both corp_id and corp_secret'];
    return ['set corp_id, corp_secret and agent_id (app) or webhook_key (group robot)'];
  },
  needsTarget: (o) => !o.webhook_key,
  needsToken: (o) => !o.webhook_key,
  async token({ call, options }) {
    const res = await call({ url: joinUrl(options.api_base, '/cgi-bin/gettoken', { corpid: options.corp_id ?? '', corpsecret: options.corp_secret ?? '' }) });
    return issuedTokenFrom(res, { token: 'access_token', expiresIn: 'expires_in' }, 'platform_13 (WeCom)');
  },
  request: workApiRequest,
  checkResponse: checkWorkApiResponse,
  messageId: (res) => (res.json as { msgid?: string } | undefined)?.msgid,
  async start({ call, options, logger }) {
    if (options.webhook_key) {
      logger.info('platform_13 (WeCom): using a group robot; it is checked by the first delivery');
      return;
    }
    await call((token) => ({ url: joinUrl(options.api_base, '/cgi-bin/get_api_domain_ip', { access_token: token ?? '' }) }));
    logger.info('platform_13 (WeCom): app credentials accepted');
  },
});
