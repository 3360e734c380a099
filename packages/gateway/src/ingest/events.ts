// Matches an event type (read by the request's source) against a route's `events` filter.

/** GitLab names events like `Merge Request Hook`; the normalised form is `merge_request`. */
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
