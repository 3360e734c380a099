// Splits a long answer into messages no longer than a platform's limit, preferring paragraph, then line,
// then word boundaries, and never leaving a ``` code fence open: a fence cut in two is closed at the end
// of one chunk and re-opened (with its language) at the start of the next. Linear in the length of the
// answer whatever its content: it walks the text with an index and only ever looks at one chunk's worth of
// it (no regex that can backtrack over a long run of spaces, no copies of the rest of the answer).
import { closesFence, fenceOpening, mayBeFence } from './fence';

interface OpenFence {
  /** The fence characters, e.g. "```" or "~~~~". */
  marker: string;
  /** The opening line as written, e.g. "```ts", used to re-open the fence in the next chunk. */
  openLine: string;
}

const NEWLINE = 10;
const SPACE = 32;

function isSpace(code: number): boolean {
  // What String.prototype.trim() removes, for the characters an answer realistically holds.
  return (
    code === SPACE ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0xfeff ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x3000 ||
    code === 0x1680 ||
    code === 0x202f ||
    code === 0x205f
  );
}

/**
 * Fence state after text[from, to), given the state before it. With `lines`, the start of each whole line
 * scanned and the state before it are recorded, so that the state at an earlier cut can be had from there.
 */
function fenceAfter(text: string, from: number, to: number, before: OpenFence | null, lines?: Array<[number, OpenFence | null]>): OpenFence | null {
  let state = before;
  for (let start = from; start <= to;) {
    lines?.push([start, state]);
    // Bounded by `to`: indexOf could run to the end of a long answer without newlines, once per chunk.
    let end = start;
    while (end < to && text.charCodeAt(end) !== NEWLINE) end++;
    if (mayBeFence(text, start)) {
      if (!state) {
        const open = fenceOpening(text, start, end);
        if (open) state = { marker: open.marker, openLine: text.slice(start, end).trim() };
      } else if (closesFence(text, start, end, state.marker)) {
        state = null;
      }
    }
    start = end + 1;
  }
  return state;
}

/** Fence state at `cut`, from the line starts recorded by a scan that went further. */
function fenceAt(text: string, cut: number, lines: Array<[number, OpenFence | null]>): OpenFence | null {
  let k = lines.length - 1;
  while (k > 0 && lines[k][0] > cut) k--;
  const [start, state] = lines[k];
  return fenceAfter(text, start, cut, state);
}

/** Last index i in [from, to] where text[i] is `code` (and, for a paragraph, text[i+1] too); -1 if none. */
function lastBoundary(text: string, from: number, to: number, code: number, paragraph = false): number {
  for (let i = to; i >= from; i--) {
    if (text.charCodeAt(i) === code && (!paragraph || text.charCodeAt(i + 1) === code)) return i;
  }
  return -1;
}

/** Best place (an index in (pos, fit]) to end the piece that starts at `pos` and may run to `fit`. */
function findCut(text: string, pos: number, fit: number): number {
  const budget = fit - pos;
  const paragraph = lastBoundary(text, pos, fit, NEWLINE, true);
  if (paragraph - pos >= budget / 2) return paragraph;
  const line = lastBoundary(text, pos, fit, NEWLINE);
  if (line - pos >= budget / 3) return line;
  const word = lastBoundary(text, pos, fit, SPACE);
  if (word - pos >= budget / 3) return word;
  // Short pieces beat a word cut in half.
  const any = Math.max(line, word);
  if (any > pos) return any;
  // No boundary at all: hard cut, but never between the two halves of a surrogate pair.
  const code = text.charCodeAt(fit - 1);
  return code >= 0xd800 && code <= 0xdbff && budget > 1 ? fit - 1 : fit;
}

/** How a platform counts a message's length: UTF-16 code units (most) or UTF-8 bytes (e.g. WeCom's 2048 bytes). */
export type LengthUnit = 'utf16' | 'utf8';

/** Length of `text` in `unit`. */
export function measureText(text: string, unit: LengthUnit = 'utf16'): number {
  return unit === 'utf8' ? Buffer.byteLength(text, 'utf8') : text.length;
}

/** Largest index e in [pos, end] such that text[pos, e) fits `budget` in `unit`; never inside a character. */
function fittingEnd(text: string, pos: number, end: number, budget: number, unit: LengthUnit): number {
  if (budget <= 0) return pos;
  if (unit === 'utf16') return Math.min(end, pos + budget);
  let bytes = 0;
  let index = pos;
  while (index < end) {
    const code = text.charCodeAt(index);
    let size = 1;
    let units = 1;
    if (code >= 0x80) {
      if (code < 0x800) size = 2;
      else if (code >= 0xd800 && code <= 0xdbff && index + 1 < end && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
        size = 4;
        units = 2;
      } else {
        // The rest of the BMP, and a lone surrogate (encoded as U+FFFD): 3 bytes.
        size = 3;
      }
    }
    if (bytes + size > budget) break;
    bytes += size;
    index += units;
  }
  return index;
}

/** Index after the whitespace that ends text[from, to): the piece is text[from, result). */
function trimmedEnd(text: string, from: number, to: number): number {
  let end = to;
  while (end > from && isSpace(text.charCodeAt(end - 1))) end--;
  return end;
}

/**
 * Splits `text` into chunks of at most `limit` characters (UTF-16 code units, which is what most platforms
 * count; `unit: 'utf8'` counts UTF-8 bytes instead). Text that fits is returned as one chunk, unchanged
 * except for trailing whitespace.
 */
export function chunkText(text: string, limit: number, unit: LengthUnit = 'utf16'): string[] {
  if (!Number.isInteger(limit) || limit < 16) throw new RangeError(`chunk limit must be an integer >= 16, got ${limit}`);
  const chunks: string[] = [];
  const end = trimmedEnd(text, 0, text.length);
  let pos = 0;
  let state: OpenFence | null = null;
  let prefix = '';
  // The leading run of spaces/tabs last scanned for a blank line inside a fence: [from, to), and whether a
  // newline ends it. Remembered so that a long run of spaces is scanned once, not once per chunk.
  let run = { from: -1, to: -1 };
  while (pos < end) {
    const room = limit - measureText(prefix, unit);
    const fit = fittingEnd(text, pos, end, room, unit);
    if (fit === end) {
      chunks.push(prefix + text.slice(pos, end));
      break;
    }
    let cut = findCut(text, pos, fit);
    const lines: Array<[number, OpenFence | null]> = [];
    let closing = fenceAfter(text, pos, cut, state, lines);
    if (closing) {
      // Make room for the closing fence; the shorter cut may end before the fence opened, which is fine.
      const shorter = fittingEnd(text, pos, end, room - closing.marker.length - 1, unit);
      if (cut > shorter) {
        cut = shorter > pos ? findCut(text, pos, shorter) : shorter;
        closing = fenceAt(text, cut, lines);
      }
    }
    if (cut <= pos) cut = Math.max(fit, pos + 1); // cannot happen with limit >= 16; never loop forever
    const pieceEnd = trimmedEnd(text, pos, cut);
    let hasText = false;
    for (let i = pos; i < pieceEnd && !hasText; i++) hasText = !isSpace(text.charCodeAt(i));
    if (hasText) chunks.push(prefix + text.slice(pos, pieceEnd) + (closing ? `\n${closing.marker}` : ''));
    pos = cut;
    if (closing) {
      // Inside a fence only a blank line is dropped (indentation is code): whitespace up to the first newline.
      if (pos < run.from || pos >= run.to) {
        let i = pos;
        while (i < end && text.charCodeAt(i) !== NEWLINE && isSpace(text.charCodeAt(i))) i++;
        run = { from: pos, to: i };
      }
      if (text.charCodeAt(run.to) === NEWLINE) pos = run.to + 1;
    } else {
      while (pos < end && isSpace(text.charCodeAt(pos))) pos++;
    }
    state = closing;
    // A re-opening line longer than a quarter of the limit would starve the chunks; the bare marker will do.
    prefix = closing ? `${closing.openLine.length <= limit / 4 ? closing.openLine : closing.marker}\n` : '';
  }
  return chunks;
}

/** The parts of an answer that are sent when it has more than a platform allows. */
export interface CappedParts {
  parts: string[];
  /** How many parts the whole answer would have been; equals parts.length when nothing was cut. */
  total: number;
}

/**
 * Keeps the first `maxParts` of `parts`; when some are dropped, the last kept part is shortened so that
 * `notice(total, maxParts)` fits after it within `limit`, so the reader knows the answer goes on.
 */
export function capParts(
  parts: string[],
  maxParts: number,
  limit: number,
  notice: (total: number, kept: number) => string,
  unit: LengthUnit = 'utf16',
): CappedParts {
  const total = parts.length;
  if (total <= maxParts) return { parts, total };
  const note = notice(total, maxParts);
  const kept = parts.slice(0, maxParts);
  const room = limit - measureText(note, unit) - 2;
  const last = kept[maxParts - 1];
  // The last part is re-split at the room left; its first piece keeps its fences balanced.
  const shortened = room >= 16 ? (chunkText(last, room, unit)[0] ?? '') : '';
  kept[maxParts - 1] = shortened ? `${shortened}\n\n${note}` : note;
  return { parts: kept, total };
}
