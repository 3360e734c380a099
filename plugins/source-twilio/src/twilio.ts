// Twilio webhooks: `X-Twilio-Signature`, the base64 HMAC-SHA1 (key: the account's Auth Token) of the URL Twilio
// requested followed by every POST parameter (sorted by name, name then value); a JSON body is bound instead by the
// `bodySHA256` query parameter Twilio adds to that URL. Form bodies become the payload's fields.
import { createHash } from 'node:crypto';
import { parse as parseLegacyQuery, stringify as stringifyLegacyQuery } from 'node:querystring';
import { type SourceRequest, type SourceVerdict, headerText } from '@hookwise/core';
import { constantTimeEqual, hmacDigest, matchingSecretIndex, missingHeader, defineSource } from '@hookwise/kit/source';
import { twilioReplyOf, twilioSenderOf } from './twilio-replies';
import { twilioPayloadSchema } from './payload-schema';

export const SIGNATURE_HEADER = 'x-twilio-signature';
/** Sent with every webhook and kept when Twilio retries it (connection overrides, fallback URLs). */
export const IDEMPOTENCY_HEADER = 'i-twilio-idempotency-token';
/** The query parameter that carries the hex SHA-256 of a JSON body. */
export const BODY_HASH_PARAM = 'bodySHA256';

export interface TwilioSourceOptions {
  /** A payload field whose value is taken as the event type as it is (e.g. `SmsStatus`), instead of the default rule. */
  event_field?: string;
}

/** HMAC-SHA1 is 20 bytes: 28 base64 characters, the last one padding. */
const BASE64_SHA1 = /^[A-Za-z0-9+/]{27}=$/;

/** The URL's `bodySHA256` parameter; undefined for a form post (or a URL that does not parse). */
export function bodyHashParam(url: string): string | undefined {
  try {
    return new URL(url).searchParams.get(BODY_HASH_PARAM) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The fields of an `application/x-www-form-urlencoded` body, each with all its values in order. */
export function formFields(body: Buffer): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(body.toString('utf8'))) {
    const values = fields.get(name);
    if (values) values.push(value);
    else fields.set(name, [value]);
  }
  return fields;
}

/**
 * The string Twilio signs: the URL, then each parameter name in sorted order followed by its value (a repeated
 * parameter: each distinct value, sorted, after its name). Sorting is by UTF-16 code unit, as Twilio's SDKs do.
 */
export function signedText(url: string, fields: ReadonlyMap<string, readonly string[]>): string {
  let text = url;
  for (const name of [...fields.keys()].sort()) {
    for (const value of [...new Set(fields.get(name))].sort()) text += name + value;
  }
  return text;
}

function withStandardPort(url: URL): string {
  if (url.port !== '') return url.href;
  const port = url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '';
  if (!port) return url.href;
  const auth = url.username || url.password ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  return `${url.protocol}//${auth}${url.host}:${port}${url.pathname}${url.search}`;
}

/** The query string as older Twilio back ends encoded it (Node's querystring rules instead of WHATWG URL's). */
function withLegacyQuery(href: string): string {
  const url = new URL(href);
  if (!url.search) return href;
  const query = stringifyLegacyQuery(parseLegacyQuery(url.search.slice(1)));
  url.search = '';
  return `${url.href}?${query}`;
}

/**
 * The spellings of the URL Twilio may have signed. Twilio signs the URL as configured in its console, and its own
 * validators accept it with and without the port (a proxy may add or drop `:443`) and with the query string in
 * either encoding; the same set is tried here. The URL as received comes first.
 */
export function urlCandidates(url: string): string[] {
  const candidates = new Set<string>([url]);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url];
  }
  const withoutPort = new URL(parsed.href);
  withoutPort.port = '';
  for (const href of [withoutPort.href, withStandardPort(parsed)]) {
    candidates.add(href);
    try {
      candidates.add(withLegacyQuery(href));
    } catch {
      /* a spelling that does not parse again is simply not tried */
    }
  }
  return [...candidates];
}

export function verifyTwilio(req: SourceRequest, secrets: readonly string[]): SourceVerdict {
  const signature = headerText(req.headers, SIGNATURE_HEADER);
  if (signature === undefined) return missingHeader(SIGNATURE_HEADER);
  if (!BASE64_SHA1.test(signature)) return { ok: false, reason: `${SIGNATURE_HEADER} is not a base64 HMAC-SHA1 (28 characters)` };

  const bodyHash = bodyHashParam(req.url);
  // A JSON post signs the URL alone (its bodySHA256 binds the body); a form post signs every field of the body.
  // Without bodySHA256 the body is always read as a form, whatever its Content-Type says, so no byte of it is unsigned.
  const fields = bodyHash === undefined ? formFields(req.rawBody) : new Map<string, string[]>();
  const texts = urlCandidates(req.url).map((url) => Buffer.from(signedText(url, fields), 'utf8'));
  const index = matchingSecretIndex(secrets, (secret) => texts.some((text) => constantTimeEqual(signature, hmacDigest('sha1', secret, text, 'base64'))));
  if (index < 0) {
    return { ok: false, reason: 'digest does not match (check the Auth Token, and that public_url is the URL configured in Twilio, query string included)' };
  }
  if (bodyHash !== undefined) {
    const actual = createHash('sha256').update(req.rawBody).digest('hex');
    if (!constantTimeEqual(bodyHash.toLowerCase(), actual)) return { ok: false, reason: `the body does not match the ${BODY_HASH_PARAM} of the signed URL` };
  }
  return { ok: true, secretIndex: index };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Form fields as a payload: one value as a string, a repeated field as the list of its values. */
export function fieldsAsPayload(fields: ReadonlyMap<string, readonly string[]>): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const [name, values] of fields) {
    // defineProperty: a field named `__proto__` becomes an ordinary key instead of touching the prototype.
    Object.defineProperty(payload, name, { value: values.length === 1 ? values[0] : [...values], enumerable: true, writable: true, configurable: true });
  }
  return payload;
}

export function parseTwilio(req: SourceRequest): Record<string, unknown> | undefined {
  // The same rule as verification: JSON only where bodySHA256 signed it, so the payload is exactly what was signed.
  if (bodyHashParam(req.url) === undefined) return fieldsAsPayload(formFields(req.rawBody));
  try {
    const value: unknown = JSON.parse(req.rawBody.toString('utf8'));
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function text(payload: Record<string, unknown>, field: string): string | undefined {
  const value = payload[field];
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** Status fields and the prefix each gets, in the order they are looked for. */
const STATUS_FIELDS: ReadonlyArray<[field: string, prefix: string]> = [
  ['MessageStatus', 'message'],
  ['SmsStatus', 'message'],
  ['RecordingStatus', 'recording'],
  ['CallStatus', 'call'],
];

/**
 * The event type: `EventType` as sent (Conversations, TaskRouter, Sync: `onMessageAdded`, `task.created`), else
 * `message.<status>` (MessageStatus/SmsStatus: `message.received`, `message.delivered`), `recording.<status>`,
 * `call.<status>` (`call.ringing`, `call.completed`). With `event_field` set, that field's value as it is.
 */
export function twilioEventType(payload: Record<string, unknown>, eventField?: string): string | undefined {
  if (eventField) return text(payload, eventField);
  const eventType = text(payload, 'EventType');
  if (eventType !== undefined) return eventType;
  for (const [field, prefix] of STATUS_FIELDS) {
    const status = text(payload, field);
    if (status !== undefined) return `${prefix}.${status}`;
  }
  return undefined;
}

/**
 * `I-Twilio-Idempotency-Token` when sent; else the resource's SID and its status (`<RecordingSid|MessageSid|CallSid>:<status>`),
 * which stays the same when Twilio calls again for the same status change.
 */
export function twilioDeliveryId(req: SourceRequest, payload: Record<string, unknown>): string | undefined {
  const token = headerText(req.headers, IDEMPOTENCY_HEADER);
  if (token !== undefined) return token;
  const candidates: Array<[sid: string | undefined, status: string | undefined]> = [
    [text(payload, 'RecordingSid'), text(payload, 'RecordingStatus')],
    [text(payload, 'MessageSid') ?? text(payload, 'SmsSid'), text(payload, 'MessageStatus') ?? text(payload, 'SmsStatus')],
    [text(payload, 'CallSid'), text(payload, 'CallStatus')],
  ];
  for (const [sid, status] of candidates) {
    if (sid !== undefined) return status === undefined ? sid : `${sid}:${status}`;
  }
  return undefined;
}

export const twilioSource = defineSource<TwilioSourceOptions>({
  id: 'twilio',
  payloadSchema: twilioPayloadSchema,
  description: 'Twilio: X-Twilio-Signature (base64 HMAC-SHA1 of the URL and POST parameters; bodySHA256 for JSON), form fields as payload',
  options: {
    event_field: {
      type: 'string',
      minLength: 1,
      description:
        'A payload field whose value is the event type as it is (e.g. SmsStatus, CallStatus). Unset: EventType, else message.<status>, recording.<status> or call.<status>.',
    },
  },
  style(options) {
    return {
      headers: [SIGNATURE_HEADER],
      verify: verifyTwilio,
      parse: parseTwilio,
      eventType: (_req, payload) => twilioEventType(payload, options.event_field),
      deliveryId: twilioDeliveryId,
      // An incoming SMS continues the conversation of the latest answer sent to that number (twilio-replies.ts).
      replyOf: twilioReplyOf,
      senderOf: twilioSenderOf,
    };
  },
});
