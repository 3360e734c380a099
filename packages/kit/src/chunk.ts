// Splits a long answer into messages no longer than a platform's limit, preferring paragraph, then line,
// then word boundaries, and never leaving a ``` code fence open: a fence cut in two is closed at the end
// of one chunk and re-opened (with its language) at the start of the next.

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

interface OpenFence {
  /** The fence characters, e.g. "```" or "~~~~". */
  marker: string;
  /** The opening line as written, e.g. "```ts", used to re-open the fence in the next chunk. */
  openLine: string;
}

/** Fence state after `text`, given the state before it. */
function fenceAfter(text: string, before: OpenFence | null): OpenFence | null {
  let state = before;
  for (const line of text.split('\n')) {
    const m = FENCE_LINE.exec(line);
    if (!m) continue;
    if (!state) state = { marker: m[1], openLine: line.trim() };
    else if (m[1][0] === state.marker[0] && m[1].length >= state.marker.length && m[2].trim() === '') state = null;
  }
  return state;
}

/** Best place (an index <= budget) to end a piece of `text`. */
function findCut(text: string, budget: number): number {
  const paragraph = text.lastIndexOf('\n\n', budget);
  if (paragraph >= budget / 2) return paragraph;
  const line = text.lastIndexOf('\n', budget);
  if (line >= budget / 3) return line;
  const word = text.lastIndexOf(' ', budget);
  if (word >= budget / 3) return word;
  // Short pieces beat a word cut in half.
  const any = Math.max(line, word);
  if (any > 0) return any;
  // No boundary at all: hard cut, but never between the two halves of a surrogate pair.
  const code = text.charCodeAt(budget - 1);
  return code >= 0xd800 && code <= 0xdbff && budget > 1 ? budget - 1 : budget;
}

/** How a platform counts a message's length: UTF-16 code units (most) or UTF-8 bytes (e.g. WeCom's 2048 bytes). */
export type LengthUnit = 'utf16' | 'utf8';

/** Length of `text` in `unit`. */
export function measureText(text: string, unit: LengthUnit = 'utf16'): number {
  return unit === 'utf8' ? Buffer.byteLength(text, 'utf8') : text.length;
}

/** Index (in UTF-16 units) of the longest prefix of `text` that fits `budget`; never inside a character. */
function fittingPrefix(text: string, budget: number, unit: LengthUnit): number {
  if (unit === 'utf16') return Math.min(budget, text.length);
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.codePointAt(index)!;
    // A lone surrogate is encoded as U+FFFD: 3 bytes, like the rest of the BMP above U+07FF.
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > budget) break;
    bytes += size;
    index += code >= 0x10000 ? 2 : 1;
  }
  return index;
}

/**
 * Splits `text` into chunks of at most `limit` characters (UTF-16 code units, which is what most platforms
 * count; `unit: 'utf8'` counts UTF-8 bytes instead). Text that fits is returned as one chunk, unchanged
 * except for trailing whitespace.
 */
export function chunkText(text: string, limit: number, unit: LengthUnit = 'utf16'): string[] {
  if (!Number.isInteger(limit) || limit < 16) throw new RangeError(`chunk limit must be an integer >= 16, got ${limit}`);
  const chunks: string[] = [];
  let rest = text.replace(/\s+$/, '');
  let state: OpenFence | null = null;
  let prefix = '';
  while (rest.length > 0) {
    if (measureText(prefix + rest, unit) <= limit) {
      chunks.push(prefix + rest);
      break;
    }
    const room = limit - measureText(prefix, unit);
    let cut = findCut(rest, fittingPrefix(rest, room, unit));
    let end = fenceAfter(rest.slice(0, cut), state);
    if (end && measureText(rest.slice(0, cut), unit) + end.marker.length + 1 > room) {
      // Make room for the closing fence; the shorter cut may end before the fence opened, which is fine.
      cut = findCut(rest, fittingPrefix(rest, room - end.marker.length - 1, unit));
      end = fenceAfter(rest.slice(0, cut), state);
    }
    const piece = rest.slice(0, cut).replace(/\s+$/, '');
    if (piece.trim().length > 0) chunks.push(prefix + piece + (end ? `\n${end.marker}` : ''));
    rest = rest.slice(cut);
    // Inside a fence only blank lines are dropped (indentation is code); outside, all leading whitespace.
    rest = end ? rest.replace(/^\s*?\n/, '') : rest.replace(/^\s+/, '');
    state = end;
    // A re-opening line longer than a quarter of the limit would starve the chunks; the bare marker will do.
    prefix = end ? `${end.openLine.length <= limit / 4 ? end.openLine : end.marker}\n` : '';
  }
  return chunks;
}
