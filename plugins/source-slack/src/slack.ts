// Slack: `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<X-Slack-Request-Timestamp>:<body>">` for the Events API, interactivity and slash commands.
import { headerValue, type HandshakeAnswer, type SourceRequest, type SourceVerdict } from '@hookwise/core';
import { slackOwnMessage, slackPressOf, slackReplyOf, slackSenderOf } from './slack-replies';
import {
  constantTimeEqual,
  hmacDigest,
  missingHeader,
  timestampProblem,
  toleranceOption,
  verdictForSecrets,
  defineSource,
  payloadString,
} from '@hookwise/kit/source';
import { slackPayloadSchema } from './payload-schema';

export const SIGNATURE_HEADER = 'x-slack-signature';
export const TIMESTAMP_HEADER = 'x-slack-request-timestamp';
/** Slack's documented window: "more than five minutes from local time" is refused (Bolt uses the same). */
export const DEFAULT_TOLERANCE_SECONDS = 300;
/** The event type given to slash command requests, which carry no `type` of their own. */
export const SLASH_COMMAND_EVENT = 'slash_command';

export interface SlackOptions {
  tolerance_seconds?: number;
}

const SIGNATURE = /^v0=([0-9a-fA-F]{64})$/;

const text = payloadString;

function jsonObject(source: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(source);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function isForm(req: SourceRequest): boolean {
  return (headerValue(req.headers, 'content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
}

/**
 * Every body Slack posts, as one object: Events API JSON as is; interactivity (`payload=<json>`) as that JSON;
 * a slash command's plain form fields (`command`, `text`, `user_id`, `trigger_id`, ...) as strings.
 */
export function parseSlackBody(req: SourceRequest): Record<string, unknown> | undefined {
  const body = req.rawBody.toString('utf8');
  if (!isForm(req)) return jsonObject(body);
  const form = new URLSearchParams(body);
  const payload = form.get('payload');
  if (payload !== null) return jsonObject(payload);
  // fromEntries defines own properties, so a `__proto__` field cannot reach the prototype.
  const fields = Object.fromEntries(form);
  return Object.keys(fields).length > 0 ? fields : undefined;
}

/**
 * Events API callbacks are named by the inner event (`app_mention`, `message`, `reaction_added`); every other
 * body by its own `type` (`url_verification`, `app_rate_limited`, `block_actions`, `view_submission`,
 * `shortcut`, ...); slash commands, which have none, are `slash_command`.
 */
export function slackEventType(payload: Record<string, unknown>): string | undefined {
  const type = text(payload.type);
  if (type === 'event_callback') {
    const event = payload.event;
    const inner = event !== null && typeof event === 'object' ? text((event as Record<string, unknown>).type) : undefined;
    return inner ?? type;
  }
  if (type !== undefined) return type;
  if (text(payload.command) !== undefined) return SLASH_COMMAND_EVENT;
  return undefined;
}

/**
 * `event_id` for the Events API (the same on Slack's retries, which add X-Slack-Retry-Num); `trigger_id` for
 * interactivity and slash commands (one per user action; Slack does not retry those). Otherwise none, and the
 * gateway makes one up.
 */
export function slackDeliveryId(payload: Record<string, unknown>): string | undefined {
  return text(payload.event_id) ?? text(payload.trigger_id);
}

export const slackSource = defineSource<SlackOptions>({
  id: 'slack',
  payloadSchema: slackPayloadSchema,
  description: 'Slack: X-Slack-Signature (v0 HMAC-SHA256 of "v0:<timestamp>:<body>"), Events API, interactivity, slash commands, url_verification',
  options: { tolerance_seconds: toleranceOption(DEFAULT_TOLERANCE_SECONDS) },
  style(options) {
    const tolerance = options.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS;

    function verify(req: SourceRequest, secrets: readonly string[]): SourceVerdict {
      const header = headerValue(req.headers, SIGNATURE_HEADER);
      if (header === undefined) return missingHeader(SIGNATURE_HEADER);
      const timestamp = headerValue(req.headers, TIMESTAMP_HEADER)?.trim();
      if (timestamp === undefined || timestamp === '') return { ok: false, reason: `missing ${TIMESTAMP_HEADER} header (it is part of the signed content)` };
      if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: `${TIMESTAMP_HEADER} is not a number of seconds` };
      const match = SIGNATURE.exec(header.trim());
      if (!match) return { ok: false, reason: `${SIGNATURE_HEADER} is not v0=<64 hex digits>` };
      const offered = match[1].toLowerCase();
      const signed = Buffer.concat([Buffer.from(`v0:${timestamp}:`, 'utf8'), req.rawBody]);
      const verdict = verdictForSecrets(
        secrets,
        (secret) => secret !== '' && constantTimeEqual(offered, hmacDigest('sha256', secret, signed, 'hex')),
        "v0 signature does not match (is the secret the app's Signing Secret, not its verification token?)",
      );
      if (!verdict.ok) return verdict;
      const problem = timestampProblem(timestamp, req.receivedAt, tolerance);
      return problem ? { ok: false, reason: problem } : verdict;
    }

    function handshake(_req: SourceRequest, payload: Record<string, unknown>): HandshakeAnswer | undefined {
      // Events API Request URL check: answer 200 with the challenge as plain text.
      if (payload.type === 'url_verification' && typeof payload.challenge === 'string') {
        return { status: 200, body: payload.challenge, contentType: 'text/plain' };
      }
      // Slash command SSL check (`ssl_check=1`): Slack only wants a 200.
      if (payload.ssl_check === '1' && payload.command === undefined) return { status: 200, body: '', contentType: 'text/plain' };
      return undefined;
    }

    return {
      headers: [SIGNATURE_HEADER, TIMESTAMP_HEADER],
      verify,
      parse: parseSlackBody,
      eventType: (_req, payload) => slackEventType(payload),
      deliveryId: (_req, payload) => slackDeliveryId(payload),
      handshake,
      replyOf: slackReplyOf,
      pressOf: slackPressOf,
      senderOf: slackSenderOf,
      ownMessage: slackOwnMessage,
    };
  },
});
