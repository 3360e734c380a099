// The request path of a webhook, read once per request: does it decode, and which route does `/webhooks/<name>`
// name. node-handler.ts makes the check for every way a request comes in (docs/architecture.md).
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
