// Reads the event type of a request and matches it against a route's `events` filter.
import { headerValue, type HeaderMap } from '@hookwise/core';

/** `X-CodeHostA-Event`, else `X-CodeHostB-Event`, else the payload's `event_type`; '' when none. */
export function readEventType(headers: HeaderMap, payload: unknown): string {
  const fromHeader = headerValue(headers, 'x-codehosta-event') ?? headerValue(headers, 'x-codehostb-event');
  if (fromHeader !== undefined) return fromHeader;
  if (payload !== null && typeof payload === 'object' && !Array.isArray(payload)) {
    const value = (payload as Record<string, unknown>).event_type;
    if (typeof value === 'string' || typeof value === 'number') return String(value);
  }
  return '';
}

/** Code host B names events like `Merge Request Hook`; the normalised form is `merge_request`. */
export function normaliseEventType(event: string): string {
  return event
    .trim()
    .replace(/\s+hook$/i, '')
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** Empty or unset `events` accepts all; otherwise the raw value or its normalised form must be listed. */
export function eventAccepted(events: readonly string[] | undefined, event: string): boolean {
  if (!events || events.length === 0) return true;
  if (events.includes(event)) return true;
  const normalised = normaliseEventType(event);
  return events.some((e) => e === normalised || normaliseEventType(e) === normalised);
}
