// The request `hookwise webhook test` sends: a JSON body signed in the style of the route's source (GitHub's for
// routes that take any), a unique delivery id and an event type that passes the route's filter, so a test reaches
// the agent instead of being skipped as a duplicate or ignored.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INSECURE_NO_AUTH, eventAccepted, type Route } from '@hookwise/gateway';
import { hmacSha256Hex } from '@hookwise/kit/source';
import { namesOf } from './plugin-manifests';

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

/** The sender styles `webhook test` can sign, by the source ids (and the aliases their manifests declare). */
const STYLE_OF_SOURCE: Record<string, 'github' | 'gitlab' | 'generic'> = Object.fromEntries([
  ...namesOf('@hookwise/plugin-source-github', 'source', 'github').map((name) => [name, 'github'] as const),
  ...namesOf('@hookwise/plugin-source-gitlab', 'source', 'gitlab').map((name) => [name, 'gitlab'] as const),
  ['generic', 'generic'] as const,
]);

export function buildTestEvent(
  route: Pick<Route, 'name' | 'events' | 'secret' | 'source'>,
  payload: Record<string, unknown> | undefined,
  explicitEvent?: string,
  options: { now?: boolean } = {},
): TestEvent {
  const event = chooseEvent(route, payload, explicitEvent);
  // The gateway knows its test events by this prefix (with --now, they skip the route's coalesce window).
  const requestId = `hookwise-test-${randomUUID()}`;
  const body = JSON.stringify(
    payload ?? { event_type: event, test: true, message: `Test event for route '${route.name}' from hookwise webhook test`, request_id: requestId },
  );
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'hookwise-webhook-test' };
  // --now: the gateway runs the test at once rather than after the route's coalesce window (ingest/pipeline.ts).
  if (options.now) headers['x-hookwise-test'] = 'now';
  const secret = route.secret && route.secret !== INSECURE_NO_AUTH ? route.secret : undefined;
  // A route without `source:` takes any of the three styles; GitHub's names the event in a header, so a given
  // --payload is sent unchanged whatever its event_type.
  const style = route.source === undefined ? 'github' : STYLE_OF_SOURCE[route.source];
  if (!style) {
    throw new Error(
      `route '${route.name}' accepts only source '${route.source}', and \`webhook test\` signs GitHub, GitLab and generic requests: send a test event from the sender itself (docs/sources.md)`,
    );
  }
  if (style === 'github') {
    Object.assign(headers, { 'x-github-event': event, 'x-github-delivery': requestId });
    if (secret) headers['x-hub-signature-256'] = `sha256=${hmacSha256Hex(secret, body)}`;
  } else if (style === 'gitlab') {
    // GitLab sends the token itself, not a signature.
    Object.assign(headers, { 'x-gitlab-event': event, 'idempotency-key': requestId });
    if (secret) headers['x-gitlab-token'] = secret;
  } else {
    // Generic: the event type is the payload's event_type (set in the default payload).
    headers['x-request-id'] = requestId;
    if (secret) headers['x-webhook-signature'] = hmacSha256Hex(secret, body);
  }
  return { event, body, headers };
}

/**
 * The route's sample payload in the config dir, `samples/<route>.json`, that `webhook test` sends when no --payload
 * is given (an example ships one per route, so that a test renders the prompt as a real event would).
 */
export function samplePayload(configDir: string, route: string): { file: string; payload: Record<string, unknown> } | undefined {
  const file = join(configDir, 'samples', `${route}.json`);
  if (!existsSync(file)) return undefined;
  try {
    return { file, payload: parsePayloadFlag(readFileSync(file, 'utf8')) };
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message.replace(/^--payload/, 'the sample payload')}`);
  }
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
