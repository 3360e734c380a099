// whatsapp: the WhatsApp Business Cloud API (Graph API). One text message per chunk
// to /{version}/{phone_number_id}/messages; Graph errors are read by their `code`, because WhatsApp answers
// most failures with HTTP 400 and the code is what says "wait", "fix the token", "register the number" or
// "outside the 24-hour window". Parts to one person are spaced at the pair rate limit (one per 6 seconds).
import { retryAfterFromHeaders } from '@hookwise/kit';
import {
  classifyHttpStatus,
  definePlatform,
  extraValue,
  joinUrl,
  platformOptionsSchema,
  type HttpResponse,
  type PlatformFailure,
  type PlatformOptions,
} from '@hookwise/kit/platform';

export interface CloudApiOptions extends PlatformOptions {
  api_base: string;
  token: string;
  phone_number_id: string;
  api_version: string;
}

export const DEFAULT_API_BASE = 'https://graph.facebook.com';
export const DEFAULT_API_VERSION = 'v21.0';
export const MESSAGE_LIMIT = 4096;
/** Pair rate limit: one message every 6 seconds to the same WhatsApp user (error 131056 beyond it). */
export const PAIR_PACE_MS = 6000;
/** A WhatsApp id is the phone number with country code, digits only (a leading + is accepted and dropped). */
const PHONE = /^\+?[1-9]\d{6,14}$/;
/**
 * A message id to reply to: Cloud API ids are `wamid.` and base64 (`wamid.HBgLMTY1...AA=`); the check keeps
 * anything else (a path, JSON, a line break) out of the request, not the platform's exact format.
 */
const MESSAGE_ID = /^[A-Za-z0-9][A-Za-z0-9._+/=:-]{0,255}$/;
/** deliver_extra key of the message an answer replies to (set by the conversation facet, or by hand). */
export const REPLY_TO_KEY = 'reply_to_message_id';

/** Errors that mean the business number itself is not set up to send: fix the WhatsApp setup, retrying cannot help. */
const CONFIG_CODES = new Map<number, string>([
  [
    131045,
    'The business phone number has a registration problem (incorrect certificate): register it again (POST /{phone-number-id}/register) in WhatsApp Manager',
  ],
  [133010, 'The business phone number is not registered on the WhatsApp Business Platform: register it (POST /{phone-number-id}/register) before sending'],
]);

/** Error 131047: the customer has not written in the last 24 hours, so free-form text is refused. */
export const REENGAGEMENT_CODE = 131047;
export const SERVICE_WINDOW_EXPLANATION =
  "WhatsApp only delivers free-form text within 24 hours of the recipient's last message to this business number " +
  '(the customer-service window); outside it only approved template messages may be sent. Ask the recipient to ' +
  'message the number, then deliveries work again for 24 hours';

/** Throttling codes and how long to wait when the answer carries no Retry-After. */
const RATE_LIMIT_CODES = new Map<number, number | undefined>([
  [130429, 1], // Cloud API throughput (messages per second per number)
  [131056, 6], // pair rate: about one message every 6 seconds to the same recipient
  [80007, undefined], // WhatsApp Business Account rate limit: long, left to the worker's schedule
  [4, undefined], // application request limit
  [613, undefined], // calls within one hour exceeded
]);
/** Invalid, expired or under-privileged access tokens. */
const AUTH_CODES = new Set([0, 3, 10, 190]);
/** The recipient cannot get this message (not on WhatsApp, not in the test allow-list, undeliverable). */
const TARGET_CODES = new Set([131026, 131030]);

interface GraphError {
  message?: string;
  type?: string;
  code?: number | string;
  error_subcode?: number;
  error_data?: { details?: string };
  fbtrace_id?: string;
}

/** Graph errors: `{error: {message, type, code, error_subcode, error_data: {details}, fbtrace_id}}`. */
export function checkCloudApiResponse(res: HttpResponse): PlatformFailure | undefined {
  const error = (res.json as { error?: GraphError } | undefined)?.error;
  if (res.status < 300 && !error) return undefined;
  if (!error) return classifyHttpStatus(res);
  const code = Number(error.code);
  const detail = error.error_data?.details ? ` (${error.error_data.details})` : '';
  const trace = error.fbtrace_id ? ` [fbtrace_id ${error.fbtrace_id}]` : '';
  const message = `HTTP ${res.status} error ${error.code}${error.error_subcode ? `/${error.error_subcode}` : ''}: ${error.message ?? 'unknown error'}${detail}${trace}`;
  if (code === REENGAGEMENT_CODE) return { kind: 'rejected', message: `${message}. ${SERVICE_WINDOW_EXPLANATION}` };
  const setup = CONFIG_CODES.get(code);
  if (setup) return { kind: 'config', message: `${message}. ${setup}` };
  if (RATE_LIMIT_CODES.has(code) || res.status === 429) {
    return { kind: 'rate_limited', message, retryAfterSeconds: retryAfterFromHeaders(res.headers) ?? RATE_LIMIT_CODES.get(code) };
  }
  if (AUTH_CODES.has(code) || (code >= 200 && code <= 299) || res.status === 401) return { kind: 'auth', message };
  if (TARGET_CODES.has(code)) return { kind: 'target', message };
  return classifyHttpStatus(res, message.replace(/^HTTP \d+ /, ''));
}

/** The recipient as the Cloud API and the webhooks spell it: digits only. */
const waId = (target: string): string => target.replace(/^\+/, '');

function phoneNumberUrl(o: CloudApiOptions, suffix = ''): string {
  return joinUrl(o.api_base, `/${encodeURIComponent(o.api_version)}/${encodeURIComponent(o.phone_number_id)}${suffix}`);
}

export const whatsappPlatform = definePlatform<CloudApiOptions>({
  id: 'whatsapp',
  aliases: ['platform_06'],
  title: 'WhatsApp',
  description: 'Sends answers as WhatsApp text messages through the WhatsApp Business Cloud API.',
  limit: MESSAGE_LIMIT,
  maxParts: 5,
  paceMs: PAIR_PACE_MS,
  targets: {
    format: "the recipient's phone number with country code, digits only (15551234567; a leading + is dropped)",
    check: (target, { extra }) => {
      if (!PHONE.test(target)) return 'it is not a phone number with country code';
      const replyTo = extraValue(extra, REPLY_TO_KEY);
      if (replyTo !== undefined && !MESSAGE_ID.test(replyTo))
        return `deliver_extra.${REPLY_TO_KEY} ${JSON.stringify(replyTo.slice(0, 40))} is not a WhatsApp message id (wamid....)`;
      return undefined;
    },
  },
  optionsSchema: platformOptionsSchema({
    apiBase: DEFAULT_API_BASE,
    properties: {
      token: { type: 'string', minLength: 20, description: 'Access token (a System User token with whatsapp_business_messaging).' },
      phone_number_id: {
        type: 'string',
        pattern: '^[0-9]+$',
        description: 'Phone number ID of the sending number (WhatsApp Manager > API Setup), not the number itself.',
      },
      api_version: { type: 'string', pattern: '^v[0-9]+\\.[0-9]+$', default: DEFAULT_API_VERSION, description: 'Graph API version, e.g. v21.0.' },
      home_channel: { type: 'string', pattern: '^\\+?[1-9][0-9]{6,14}$', description: 'Default recipient: phone number with country code, e.g. 15551234567.' },
    },
    required: ['token', 'phone_number_id'],
  }),
  secrets: (o) => [o.token],
  credentialsHint:
    'check platforms.whatsapp.token (a System User access token with the whatsapp_business_messaging permission; temporary tokens from API Setup expire after 24 hours)',
  request: (chunk, o) => {
    // An answer in a conversation is a contextual reply to the message the person answered (Meta's "Contextual
    // replies": `context.message_id`), its first part only: the parts after it follow in the same chat.
    const replyTo = chunk.index === 0 ? extraValue(chunk.extra, REPLY_TO_KEY) : undefined;
    return {
      method: 'POST',
      url: phoneNumberUrl(o, '/messages'),
      bearer: o.token,
      json: {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: waId(chunk.target),
        ...(replyTo ? { context: { message_id: replyTo } } : {}),
        type: 'text',
        text: { body: chunk.text },
      },
    };
  },
  // Conversations: the receipt's ids are the wamids of the sent parts; a person's reply names one in context.id
  // and comes from their wa_id, which is the recipient's number in digits (source-whatsapp reads it).
  conversation: {
    platform: 'whatsapp',
    sentRefs: ({ target, ids }) => {
      if (target === undefined || !ids?.length) return undefined;
      const chat = waId(target);
      return { chat, refs: ids.map((messageId) => ({ platform: 'whatsapp', chat, messageId })) };
    },
    // To the person who replied (the route's chat_id may be a template of the first event's payload, which the
    // reply's payload does not fill the same way); kept as written when it names the same number (+ or not), so
    // that allowed_targets sees what it was written for.
    replyExtra: (to, extra) => ({
      ...extra,
      ...(extra.chat_id !== undefined && waId(extra.chat_id.trim()) !== to.chat ? { chat_id: to.chat } : {}),
      [REPLY_TO_KEY]: to.messageId,
    }),
  },
  checkResponse: checkCloudApiResponse,
  // Messages API: {messaging_product, contacts: [{input, wa_id}], messages: [{id: "wamid..."}]}.
  success: {
    describe: 'messages[0].id',
    test: (res) => typeof (res.json as { messages?: Array<{ id?: unknown }> } | undefined)?.messages?.[0]?.id === 'string',
  },
  messageId: (res) => (res.json as { messages?: Array<{ id?: string }> } | undefined)?.messages?.[0]?.id,
  async start({ call, options, logger }) {
    const res = await call({ method: 'GET', url: `${phoneNumberUrl(options)}?fields=verified_name,display_phone_number`, bearer: options.token });
    const number = res.json as { verified_name?: string; display_phone_number?: string } | undefined;
    logger.info(`whatsapp (WhatsApp): sending as ${number?.verified_name ?? '?'} (${number?.display_phone_number ?? '?'})`);
  },
});
