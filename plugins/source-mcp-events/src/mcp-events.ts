// Events of another MCP Events server (io.modelcontextprotocol/events) delivered by webhook: the gateway subscribes
// to the upstream's event type with the route's URL as the callback and gives the route the subscription's secret
// (docs/mcp-events.md); this source checks what arrives. A delivery is the occurrence
// `{eventId, name, timestamp, data, cursor}` signed in the Standard Webhooks format; the upstream's one-time
// verification `{type: "verification", challenge}` is answered with its challenge before the secret is known.

import {
  STANDARD_WEBHOOKS_HEADERS,
  STANDARD_WEBHOOKS_TOLERANCE_SECONDS,
  defineSource,
  standardWebhooksHeaders,
  toleranceOption,
  verifyStandardWebhook,
} from '@hookwise/kit/source';
import type { SourceRequest } from '@hookwise/core';
import { mcpEventsPayloadSchema } from './payload-schema';

export const MCP_EVENTS_SOURCE_ID = 'mcp-events';
export const SUBSCRIPTION_ID_HEADER = 'x-mcp-subscription-id';
/** Longest challenge echoed: the upstream's random string, not a place to reflect content. */
const MAX_CHALLENGE = 256;

export interface McpEventsOptions {
  /** The upstream MCP server's endpoint (Streamable HTTP), e.g. https://events.example.com/mcp. */
  server?: string;
  /** The upstream's event type to subscribe to. */
  event?: string;
  /** The subscription's arguments (e.g. {filter: ...}), as the upstream's events/list describes them. */
  arguments?: Record<string, unknown>;
  /** The environment variable holding the bearer token the upstream gave this gateway. */
  token_env?: string;
  ttl_seconds?: number;
  /** The URL the upstream posts to; default <platforms.webhook.extra.public_url>/webhooks/<route>. */
  callback_url?: string;
  tolerance_seconds?: number;
}

interface Occurrence {
  eventId?: unknown;
  name?: unknown;
  data?: unknown;
}

function bodyOf(req: SourceRequest): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(req.rawBody.toString('utf8')) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The challenge of a verification message, which has exactly `type: "verification"` and a short string `challenge`. */
export function verificationChallenge(req: SourceRequest): string | undefined {
  const body = bodyOf(req);
  if (!body || body.type !== 'verification' || typeof body.challenge !== 'string') return undefined;
  if (Object.keys(body).length !== 2 || body.challenge === '' || body.challenge.length > MAX_CHALLENGE) return undefined;
  return body.challenge;
}

const occurrenceOf = (req: SourceRequest): Occurrence => (bodyOf(req) ?? {}) as Occurrence;

export const mcpEventsSource = defineSource<McpEventsOptions>({
  id: MCP_EVENTS_SOURCE_ID,
  payloadSchema: mcpEventsPayloadSchema,
  description: "Events of another MCP Events server by webhook: the gateway subscribes and refreshes; each delivery is verified with the subscription's secret",
  options: {
    server: { type: 'string', pattern: '^https?://', description: "The upstream MCP server's endpoint, e.g. https://events.example.com/mcp." },
    event: { type: 'string', minLength: 1, description: 'The event type to subscribe to (as its events/list names it).' },
    arguments: { type: 'object', description: "The subscription's arguments, e.g. {filter: ...}." },
    token_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'The environment variable holding the bearer token for the upstream.' },
    ttl_seconds: { type: 'integer', minimum: 60, maximum: 86400, default: 3600, description: 'How long each subscription lasts; refreshed at half of it.' },
    callback_url: { type: 'string', pattern: '^https?://', description: 'Where the upstream posts (default: <public_url>/webhooks/<route>).' },
    tolerance_seconds: toleranceOption(STANDARD_WEBHOOKS_TOLERANCE_SECONDS),
  },
  style(options) {
    const toleranceSeconds = options.tolerance_seconds ?? STANDARD_WEBHOOKS_TOLERANCE_SECONDS;
    const { id, timestamp, signature } = STANDARD_WEBHOOKS_HEADERS;
    return {
      headers: [signature, SUBSCRIPTION_ID_HEADER, id, timestamp],
      verify(req, secrets) {
        // The verification comes before the subscription's secret exists here: it is answered (handshake) and never queued.
        if (verificationChallenge(req) !== undefined) return { ok: true, secretIndex: 0 };
        if (secrets.length === 0)
          return { ok: false, reason: 'no subscription secret yet: the gateway has not subscribed to the upstream MCP server (see its log)' };
        return verifyStandardWebhook(req.headers, req.rawBody, secrets, req.receivedAt, { toleranceSeconds });
      },
      // The job's payload is the event's data, so a route's prompt and filter read it as the upstream sent it.
      parse(req) {
        const body = bodyOf(req);
        if (!body) return undefined;
        if (verificationChallenge(req) !== undefined) return body;
        const data = (body as Occurrence).data;
        return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
      },
      handshake(req) {
        const challenge = verificationChallenge(req);
        return challenge === undefined ? undefined : { status: 200, body: { challenge } };
      },
      eventType: (req) => {
        const name = occurrenceOf(req).name;
        return typeof name === 'string' && name !== '' ? name : undefined;
      },
      // The upstream's event id: the same on its retries, and on a second subscription's copy of the event.
      deliveryId: (req) => {
        const eventId = occurrenceOf(req).eventId;
        return typeof eventId === 'string' && eventId !== '' ? eventId : standardWebhooksHeaders(req.headers).id || undefined;
      },
    };
  },
});
