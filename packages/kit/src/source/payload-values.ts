// Reading a sender's parsed payload safely: what a reply reader or a button-press reader (Source.replyOf,
// Source.pressOf) needs to tell an object from anything else, and a platform id (a number or a string) from junk.

/** A JSON object (not null, not an array). */
export function isPayloadObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** An id as the platform sends it, as text: a safe integer or a non-empty string; anything else is undefined. */
export function payloadId(value: unknown): string | undefined {
  return (typeof value === 'number' && Number.isSafeInteger(value)) || (typeof value === 'string' && value !== '') ? String(value) : undefined;
}

/** A non-empty string field as it is, else undefined (numbers are not taken: see payloadId for ids). */
export function payloadString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A text field, or '' when it is missing or not text. */
export function payloadText(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
