// Code fences (``` or ~~~ lines) found by index in a longer text, without slicing or a regex per line: shared by
// the chunker (which keeps fences balanced across messages) and the markdown converters.

export interface FenceOpening {
  /** The fence characters, e.g. "```" or "~~~~". */
  marker: string;
  /** The language named after the marker ("ts"), or "". */
  lang: string;
  /** Index of the marker's first character (after up to three spaces). */
  start: number;
}

/** Whether the line starting at `at` may be a fence (up to 3 spaces, then three backticks or tildes): a cheap look before any slicing. */
export function mayBeFence(text: string, at: number): boolean {
  let i = at;
  while (i - at < 3 && text.charCodeAt(i) === 32) i++;
  const c = text.charCodeAt(i);
  return (c === 96 || c === 126) && text.charCodeAt(i + 1) === c && text.charCodeAt(i + 2) === c;
}

/** The fence that opens on the line text[at, end) (up to 3 spaces, 3+ backticks or tildes), else undefined. */
export function fenceOpening(text: string, at: number, end: number): FenceOpening | undefined {
  let i = at;
  while (i - at < 3 && text.charCodeAt(i) === 32) i++;
  const ch = text.charCodeAt(i);
  if (ch !== 96 && ch !== 126) return undefined;
  let j = i;
  while (j < end && text.charCodeAt(j) === ch) j++;
  if (j - i < 3) return undefined;
  // A backtick fence's info string may not contain a backtick (that is inline code, not a fence).
  if (ch === 96) for (let t = j; t < end; t++) if (text.charCodeAt(t) === 96) return undefined;
  let k = j;
  while (k < end && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9)) k++;
  let l = k;
  while (l < end && isLangChar(text.charCodeAt(l))) l++;
  return { marker: text.slice(i, j), lang: text.slice(k, l), start: i };
}

/** [A-Za-z0-9_+-]: what a fence's language name is made of. */
function isLangChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 43 || code === 45;
}

/** Whether the line text[at, end) closes a fence opened with `marker`: the same character, at least as many, nothing after. */
export function closesFence(text: string, at: number, end: number, marker: string): boolean {
  let i = at;
  while (i - at < 3 && text.charCodeAt(i) === 32) i++;
  const ch = marker.charCodeAt(0);
  let j = i;
  while (j < end && text.charCodeAt(j) === ch) j++;
  if (j - i < marker.length) return false;
  while (j < end && (text.charCodeAt(j) === 32 || (text.charCodeAt(j) >= 9 && text.charCodeAt(j) <= 13))) j++;
  return j === end;
}
