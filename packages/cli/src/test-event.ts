// The request `hookwise webhook test` sends: a signed JSON body, a unique X-Request-ID and an event type that
// passes the route's filter, so a test reaches the agent instead of being skipped as a duplicate or ignored.
import { randomUUID } from 'node:crypto';
import { INSECURE_NO_AUTH, eventAccepted, type Route } from '@hookwise/gateway';
import { hmacSha256Hex } from '@hookwise/kit';

export interface TestEvent {
  event: string;
  body: string;
  headers: Record<string, string>;
}

/** The event to send: --event, else the payload's own event_type when the route accepts it, else the first listed. */
export function chooseEvent(route: Pick<Route, 'events'>, payload: Record<string, unknown> | undefined, explicit?: string): string {
  if (explicit) return explicit;
  const own = payload?.event_type;
  if (typeof own === 'string' && eventAccepted(route.events, own)) return own;
  return route.events[0] ?? 'test';
}

export function buildTestEvent(route: Pick<Route, 'name' | 'events' | 'secret'>, payload: Record<string, unknown> | undefined, explicitEvent?: string): TestEvent {
  const event = chooseEvent(route, payload, explicitEvent);
  const requestId = `hookwise-test-${randomUUID()}`;
  const body = JSON.stringify(
    payload ?? { event_type: event, test: true, message: `Test event for route '${route.name}' from hookwise webhook test`, request_id: requestId },
  );
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'hookwise-webhook-test',
    'x-request-id': requestId,
    // The header wins over the payload's event_type, so a given --payload is sent unchanged.
    'x-codehosta-event': event,
  };
  if (route.secret && route.secret !== INSECURE_NO_AUTH) headers['x-webhook-signature'] = hmacSha256Hex(route.secret, body);
  return { event, body, headers };
}

/** Parses --payload: it must be a JSON object, as the gateway accepts nothing else. */
export function parsePayloadFlag(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`--payload is not valid JSON (${(err as Error).message}); quote it for the shell, e.g. --payload '{"action":"opened"}'`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('--payload must be a JSON object, e.g. {"action":"opened"}');
  return value as Record<string, unknown>;
}
