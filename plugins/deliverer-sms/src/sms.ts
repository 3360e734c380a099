// sms: SMS through Twilio Programmable Messaging. Form-encoded From/To/Body with HTTP
// Basic auth (Account SID + Auth Token) to the Messages resource; markdown is stripped (SMS shows it
// literally) and answers are split at Twilio's 1600-character body limit, five messages at most by default
// (every SMS costs money), one a second (a long code's throughput).
import { retryAfterFromHeaders } from '@hookwise/kit';
import {
  classifyHttpStatus,
  definePlatform,
  joinUrl,
  platformOptionsSchema,
  type HttpResponse,
  type PlatformFailure,
  type PlatformOptions,
} from '@hookwise/kit/platform';

export interface SmsGatewayOptions extends PlatformOptions {
  api_base: string;
  account_sid: string;
  auth_token: string;
  /** Sender: an E.164 number of the account, or a Messaging Service SID (MG...). */
  from: string;
}

export const DEFAULT_API_BASE = 'https://api.twilio.com';
export const MESSAGE_LIMIT = 1600;
/** A US/Canada long code sends one message segment per second; Twilio queues what goes faster. */
export const NUMBER_PACE_MS = 1000;
const E164 = /^\+[1-9]\d{6,14}$/;
/** A Message resource sid: SM... (SMS) or MM... (MMS), 32 hex digits. */
const MESSAGE_SID = /^(SM|MM)[0-9a-fA-F]{32}$/;

/** Error codes that mean "this recipient cannot get the message" rather than "the request is wrong". */
const TARGET_CODES = new Set([21211, 21214, 21217, 21407, 21408, 21610, 21612, 21614]);

/** Twilio errors: `{code, message, more_info, status}`. */
export function checkSmsResponse(res: HttpResponse): PlatformFailure | undefined {
  if (res.status < 300) return undefined;
  const body = (res.json ?? {}) as { code?: number; message?: string; more_info?: string };
  const message = `HTTP ${res.status}${body.code ? ` error ${body.code}` : ''}: ${body.message ?? res.text.slice(0, 200)}${body.more_info ? ` (${body.more_info})` : ''}`;
  if (res.status === 429 || body.code === 20429) return { kind: 'rate_limited', message, retryAfterSeconds: retryAfterFromHeaders(res.headers) };
  if (body.code !== undefined && TARGET_CODES.has(body.code)) return { kind: 'target', message };
  if (body.code === 20003 || res.status === 401) return { kind: 'auth', message };
  return classifyHttpStatus(res, message);
}

function messagesUrl(o: SmsGatewayOptions, suffix: string): string {
  return joinUrl(o.api_base, `/2010-04-01/Accounts/${encodeURIComponent(o.account_sid)}${suffix}`);
}

export const smsPlatform = definePlatform<SmsGatewayOptions>({
  id: 'sms',
  aliases: ['platform_05'],
  title: 'Twilio SMS',
  description: 'Sends answers as SMS through Twilio Programmable Messaging.',
  limit: MESSAGE_LIMIT,
  format: 'plain',
  maxParts: 5,
  paceMs: NUMBER_PACE_MS,
  targets: {
    format: 'a phone number in E.164: +, country code and number, no spaces (+15551234567)',
    check: (target) => (E164.test(target) ? undefined : 'it is not a phone number in E.164'),
  },
  optionsSchema: platformOptionsSchema({
    apiBase: DEFAULT_API_BASE,
    properties: {
      account_sid: { type: 'string', pattern: '^AC[0-9a-fA-F]{32}$', description: 'Account SID (AC...), Twilio Console > Account Info.' },
      auth_token: { type: 'string', minLength: 16, description: 'Auth Token, Twilio Console > Account Info.' },
      from: {
        type: 'string',
        pattern: '^(\\+[1-9][0-9]{6,14}|MG[0-9a-fA-F]{32})$',
        description: 'Sender number in E.164 (+15551234567) or a Messaging Service SID (MG...).',
      },
      home_channel: { type: 'string', pattern: '^\\+[1-9][0-9]{6,14}$', description: 'Default recipient number in E.164.' },
    },
    required: ['account_sid', 'auth_token', 'from'],
  }),
  secrets: (o) => [o.auth_token],
  credentialsHint: 'check platforms.sms.account_sid and auth_token (Twilio Console > Account Info)',
  request: (chunk, o) => ({
    method: 'POST',
    url: messagesUrl(o, '/Messages.json'),
    basicAuth: { username: o.account_sid, password: o.auth_token },
    form: { To: chunk.target, ...(o.from.startsWith('MG') ? { MessagingServiceSid: o.from } : { From: o.from }), Body: chunk.text },
  }),
  // Conversations: an SMS names no message it answers, so each answer is also recorded as the latest in its chat
  // (byChat), the recipient's number in E.164, which is how Twilio writes the From of that person's next SMS
  // (source-twilio reads it). The answer to it goes back to that number; SMS has no thread to reply in.
  conversation: {
    platform: 'sms',
    byChat: true,
    replyExtra: (to, extra) => ({ ...extra, ...(extra.chat_id !== undefined && extra.chat_id.trim() !== to.chat ? { chat_id: to.chat } : {}) }),
  },
  checkResponse: checkSmsResponse,
  // Create a Message: 201 with the Message resource, whose sid is SM... (MM... for MMS).
  success: {
    describe: 'a Message resource with its sid (SM...)',
    test: (res) => MESSAGE_SID.test(String((res.json as { sid?: unknown } | undefined)?.sid ?? '')),
  },
  messageId: (res) => (res.json as { sid?: string } | undefined)?.sid,
  async start({ call, options, logger }) {
    const res = await call({ method: 'GET', url: messagesUrl(options, '.json'), basicAuth: { username: options.account_sid, password: options.auth_token } });
    logger.info(
      `sms (Twilio SMS): account '${(res.json as { friendly_name?: string }).friendly_name ?? '?'}' is ${(res.json as { status?: string }).status ?? '?'}`,
    );
  },
});
