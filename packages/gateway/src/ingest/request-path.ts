// The request path of a webhook, read once per request: does it decode, and which route does `/webhooks/<name>`
// name. node-handler.ts makes the check for every way a request comes in (docs/architecture.md).
import type { Source } from '@hookwise/core';
import type { IngestResult } from './pipeline-contract';

const WEBHOOK_PATH = /^\/webhooks\/([^/?#]+)\/?(?:[?#].*)?$/;

/** The route name of a `/webhooks/<name>` URL, or undefined. */
export function routeFromUrl(url: string | undefined): string | undefined {
  const match = WEBHOOK_PATH.exec(url ?? '');
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

const PROFILE_PREFIX = /^\/p\/([^/?#]+)(\/webhooks\/.*)$/;

/** A `/p/<profile>/webhooks/...` URL: the profile it names and the webhook URL below the prefix. */
export interface ProfileUrl {
  profile: string;
  /** The URL without the prefix (`/webhooks/<route>...`), which routeFromUrl and otherWebhookRequest read. */
  rest: string;
}

/**
 * The profile a webhook URL names (`/p/<name>/webhooks/<route>`, a profile's routes hosted beside the default
 * one's); undefined for every other URL. routeFromUrl alone never reads a prefixed URL, so a host that serves no
 * profiles answers them 404 instead of running the default profile's route of the same name.
 */
export function profileUrl(url: string | undefined): ProfileUrl | undefined {
  const match = PROFILE_PREFIX.exec(url ?? '');
  if (!match) return undefined;
  let profile = match[1];
  try {
    profile = decodeURIComponent(profile);
  } catch {
    /* answered 400 before this by hasMalformedPath */
  }
  return { profile, rest: match[2] };
}

const WEBHOOK_TARGET = /^\/webhooks\/([^/?#]+)(\/[^?#]*)?(?:[?#].*)?$/;

/** A webhook request other than `POST /webhooks/<name>`: its route and the path below it ('' for none). */
export interface OtherWebhookRequest {
  route: string;
  subPath: string;
}

/**
 * A request a source may take besides `POST /webhooks/<name>` (another method, or a path below the route's, as a
 * Matrix homeserver's `PUT /webhooks/<name>/_matrix/app/v1/transactions/<txn>`); undefined for the plain POST
 * and for paths outside /webhooks/. Whether the route's source takes it is asked of the pipeline (`takes`).
 */
export function otherWebhookRequest(method: string | undefined, url: string | undefined): OtherWebhookRequest | undefined {
  const match = WEBHOOK_TARGET.exec(url ?? '');
  if (!match) return undefined;
  const subPath = match[2] === undefined || match[2] === '/' ? '' : match[2];
  if (method === 'POST' && subPath === '') return undefined;
  let route = match[1];
  try {
    route = decodeURIComponent(route);
  } catch {
    /* answered 400 before this by hasMalformedPath */
  }
  return { route, subPath };
}

/** Whether a source takes a request with this method and path below its route (Source.requests). */
export function sourceTakes(source: Source | undefined, method: string, subPath: string): boolean {
  const takes = source?.requests;
  if (!takes) return false;
  if (subPath !== '' && takes.subPaths !== true) return false;
  return method === 'POST' || (takes.methods ?? []).includes(method);
}

/**
 * True when the path of `url` (the part before `?`) has a `%` not followed by two hex digits, or escapes that
 * are not UTF-8: such a request is answered 400, never passed to a router whose decoding would throw (500).
 */
export function hasMalformedPath(url: string | undefined): boolean {
  if (!url || !url.includes('%')) return false;
  const end = url.search(/[?#]/);
  const path = end === -1 ? url : url.slice(0, end);
  if (!path.includes('%')) return false;
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}

/** The answer to a request whose path does not decode. */
export const MALFORMED_PATH_RESULT: IngestResult = { status: 400, body: { error: 'Malformed percent-encoding in the request path' } };
