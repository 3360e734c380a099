// Inline markdown spans for the conversions in markdown.ts (delimited runs, emphasis, code spans, links,
// autolinks), each found by one forward scan that never goes back over text it has passed.

// ---------------------------------------------------------------------------------------------------------
// Inline spans, each found by one forward scan.

export const PLACEHOLDER = '\uE000';

export function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0;
}

function isWord(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** Index of the first newline at or after `from` in `text`, remembered so that repeated calls stay linear. */
function newlineFinder(text: string): (from: number) => number {
  let next = -1;
  return (from) => {
    if (next < from) {
      next = text.indexOf('\n', from);
      if (next === -1) next = Infinity;
    }
    return next;
  };
}

/**
 * `delim inner delim` where inner starts and ends with a non-space (bold `**`/`__`, strike `~~`): the first
 * closer after an opener wins.
 */
export function replaceDelimited(text: string, delim: string, render: (inner: string) => string, singleLine: boolean): string {
  let i = text.indexOf(delim);
  if (i === -1) return text;
  const d = delim.length;
  const newlineAt = newlineFinder(text);
  let out = '';
  let last = 0;
  // The candidate closer only moves forward: each position is looked at once however many openers fail.
  let closer = 0;
  while (i !== -1) {
    if (i + d < text.length && !isSpace(text.charCodeAt(i + d))) {
      if (closer < i + d + 1) closer = i + d + 1;
      closer = text.indexOf(delim, closer);
      while (closer !== -1 && isSpace(text.charCodeAt(closer - 1))) closer = text.indexOf(delim, closer + 1);
      if (closer === -1) break; // no closer further on: no later opener can close either
      if (!singleLine || newlineAt(i) > closer) {
        out += text.slice(last, i) + render(text.slice(i + d, closer));
        last = closer + d;
        i = text.indexOf(delim, last);
        continue;
      }
    }
    i = text.indexOf(delim, i + 1);
  }
  return last === 0 ? text : out + text.slice(last);
}

/**
 * `*em*` / `_em_` on one line: the opener follows a non-word character (so snake_case and 2*3*4 stay as
 * written) and precedes a non-space; the next `ch` closes it if a non-space precedes it and no word
 * character follows.
 */
export function replaceEmphasis(text: string, ch: string, render: (inner: string) => string): string {
  const code = ch.charCodeAt(0);
  const newlineAt = newlineFinder(text);
  let out = '';
  let last = 0;
  for (let i = text.indexOf(ch); i !== -1;) {
    const before = i === 0 ? -1 : text.charCodeAt(i - 1);
    const after = text.charCodeAt(i + 1);
    const j = text.indexOf(ch, i + 1);
    if (j === -1) break;
    const opens = i >= last && (before === -1 || (!isWord(before) && before !== code)) && i + 1 < text.length && !isSpace(after) && after !== code;
    if (opens && j > i + 1 && !isSpace(text.charCodeAt(j - 1)) && !isWord(text.charCodeAt(j + 1)) && newlineAt(i) > j) {
      out += text.slice(last, i) + render(text.slice(i + 1, j));
      last = j + 1;
      i = text.indexOf(ch, last);
      continue;
    }
    i = j;
  }
  return out + text.slice(last);
}

/** `` `code` `` on one line, non-empty: the next backtick closes. */
export function replaceCodeSpans(text: string, render: (code: string) => string): string {
  const newlineAt = newlineFinder(text);
  let out = '';
  let last = 0;
  for (let i = text.indexOf('`'); i !== -1;) {
    const j = text.indexOf('`', i + 1);
    if (j === -1) break;
    if (j > i + 1 && newlineAt(i) > j) {
      out += text.slice(last, i) + render(text.slice(i + 1, j));
      last = j + 1;
      i = text.indexOf('`', last);
    } else {
      i = j;
    }
  }
  return out + text.slice(last);
}

/**
 * `[label](url ...)` (with `bang`: `![alt](url ...)`): label without `]`, url without spaces or `)`, then
 * anything but `)` up to `)`. An opener that fails hands over at its `]`: every opener before that `]`
 * would fail the same way.
 */
export function replaceLinks(text: string, bang: boolean, render: (label: string, url: string) => string): string {
  const opener = bang ? '![' : '[';
  let out = '';
  let last = 0;
  let noCloseParen = false;
  for (let i = text.indexOf(opener); i !== -1 && !noCloseParen;) {
    const labelStart = i + opener.length;
    const close = text.indexOf(']', labelStart);
    if (close === -1) break;
    let matched = false;
    if ((close > labelStart || bang) && text[close + 1] === '(') {
      let u = close + 2;
      while (u < text.length && text[u] !== ')' && !isSpace(text.charCodeAt(u))) u++;
      if (u > close + 2) {
        const end = text[u] === ')' ? u : text.indexOf(')', u);
        if (end === -1) noCloseParen = true;
        else {
          out += text.slice(last, i) + render(text.slice(labelStart, close), text.slice(close + 2, u));
          last = end + 1;
          matched = true;
          i = text.indexOf(opener, last);
        }
      }
    }
    if (!matched && !noCloseParen) i = text.indexOf(opener, Math.max(close, i + 1));
  }
  return out + text.slice(last);
}

/** `<https://...>` autolinks; `lt`/`gt` are the brackets as they appear (`&lt;`/`&gt;` in escaped text). */
export function replaceAutolinks(text: string, lt: string, gt: string, render: (url: string) => string): string {
  let out = '';
  let last = 0;
  for (let i = text.indexOf(lt); i !== -1;) {
    const start = i + lt.length;
    if (!text.startsWith('http://', start) && !text.startsWith('https://', start)) {
      i = text.indexOf(lt, i + 1);
      continue;
    }
    let k = start;
    while (k < text.length && !isSpace(text.charCodeAt(k)) && !text.startsWith(gt, k) && text[k] !== '|') k++;
    if (text.startsWith(gt, k)) {
      out += text.slice(last, i) + render(text.slice(start, k));
      last = k + gt.length;
      i = text.indexOf(lt, last);
    } else {
      // Every opener up to k would stop at the same place.
      i = text.indexOf(lt, k);
    }
  }
  return out + text.slice(last);
}
