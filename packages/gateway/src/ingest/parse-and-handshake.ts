// After verification: the payload (parsed by the source, or as JSON or a form's `payload` field), a handshake's
// answer (URL verification, PING), and the delivery id and event type the sources read from the request.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'winston';
import { errorMessage, headerValue, type HandshakeAnswer, type Source, type SourceRequest } from '@hookwise/core';
import { fail } from './answers';
import { parsePayload } from './body';
import type { IngestResult, NamedSource } from './pipeline-contract';
import type { Route } from '../routes/routes';

/** `<ms-timestamp>-<random>`: unique even for two id-less requests in one millisecond. */
export function generateDeliveryId(): string {
  return `${Date.now()}-${randomBytes(6).toString('hex')}`;
}

/** The payload's own `event_type` (SPEC 4.1), the fallback after the source's event header. */
export function payloadEventType(payload: Record<string, unknown>): string | undefined {
  const value = payload.event_type;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/**
 * The payload object, and its JSON text when it was parsed here (a durable store then does not serialise it
 * again); undefined when the body is no JSON object, answered 400.
 */
export function parseRequest(
  logger: Logger,
  chosen: NamedSource | undefined,
  req: SourceRequest,
): { payload?: Record<string, unknown>; json?: string } | undefined {
  return chosen?.source.parse ? parseBySource(logger, chosen, req) : parsePayload(req.rawBody, req.headers);
}

function parseBySource(logger: Logger, chosen: NamedSource, req: SourceRequest): { payload?: Record<string, unknown>; json?: string } | undefined {
  try {
    const payload = chosen.source.parse?.(req);
    return payload && typeof payload === 'object' && !Array.isArray(payload) ? { payload } : undefined;
  } catch (err) {
    logger.warn(`source '${chosen.id}' could not parse the body: ${errorMessage(err)}`);
    return undefined;
  }
}

/** What `curl -d '{...}'` gets wrong: it sends a JSON body with curl's default form content type. */
export const FORM_JSON_HINT = "the body looks like JSON sent as application/x-www-form-urlencoded: add -H 'Content-Type: application/json'";

/**
 * The 400 for a body that did not parse, with a hint when the cause is plain to see (a JSON object sent as a
 * form without a `payload` field), logged with the route. Only the failure branch pays for the second look.
 */
export function badBodyAnswer(logger: Logger, route: Route, req: SourceRequest): IngestResult {
  const answer = fail('HW_E_BAD_BODY');
  const hint = formJsonHint(req);
  logger.warn(`route '${route.name}': cannot parse the body${hint ? `: ${hint}` : ''}`, { route: route.name, reason: 'bad_body' });
  if (hint && typeof answer.body === 'object') answer.body.hint = hint;
  return answer;
}

function formJsonHint(req: SourceRequest): string | undefined {
  const contentType = (headerValue(req.headers, 'content-type') ?? '').toLowerCase();
  if (!contentType.startsWith('application/x-www-form-urlencoded')) return undefined;
  const text = req.rawBody.toString('utf8').trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? FORM_JSON_HINT : undefined;
  } catch {
    return undefined;
  }
}

/** A handshake (URL verification, PING) is answered at once and nothing is queued; undefined for an event. */
export function handshakeAnswer(
  logger: Logger,
  route: Route,
  chosen: NamedSource | undefined,
  req: SourceRequest,
  payload: Record<string, unknown>,
  secret: string,
): IngestResult | undefined {
  const handshake = chosen?.source.handshake?.(req, payload, secret);
  if (!handshake) return undefined;
  logger.info(`answered the ${chosen?.id} handshake on route '${route.name}'`, { route: route.name, source: chosen?.id });
  return senderAnswer(handshake);
}

/** A source's own answer (a handshake, or its fixed answer to an event) as the pipeline's result. */
export function senderAnswer(answer: HandshakeAnswer): IngestResult {
  const isText = typeof answer.body === 'string';
  return { status: answer.status, body: answer.body, contentType: answer.contentType ?? (isText ? 'text/plain; charset=utf-8' : undefined) };
}

/** The sender's delivery id, as the first source that finds one reads it; one of our own otherwise. */
export function deliveryIdOf(askable: readonly NamedSource[], req: SourceRequest, payload: Record<string, unknown>): string {
  return firstAnswer(askable, (s) => s.deliveryId?.(req, payload)) ?? generateDeliveryId();
}

/** The event type, as the first source that finds one reads it, else the payload's `event_type`, else ''. */
export function eventTypeOf(askable: readonly NamedSource[], req: SourceRequest, payload: Record<string, unknown>): string {
  return firstAnswer(askable, (s) => s.eventType?.(req, payload)) ?? payloadEventType(payload) ?? '';
}

/** The first answer any of `sources` gives; a source that throws is skipped. */
function firstAnswer(sources: readonly NamedSource[], ask: (source: Source) => string | undefined): string | undefined {
  for (const { source } of sources) {
    try {
      const value = ask(source);
      if (value !== undefined && value !== '') return value;
    } catch {
      /* a broken header is no event type; the next source or the fallback answers */
    }
  }
  return undefined;
}
