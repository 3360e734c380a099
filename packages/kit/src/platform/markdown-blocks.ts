// Markdown blocks and line shapes for the conversions in markdown.ts: fenced code apart from the rest, and
// headings, rules, bullets and quotes, each found by a forward scan.
import { closesFence, fenceOpening, mayBeFence } from './fence';

// ---------------------------------------------------------------------------------------------------------
// Blocks: fenced code apart from the rest, found line by line.

interface CodeBlock {
  kind: 'code';
  lang: string;
  code: string;
}
interface TextBlock {
  kind: 'text';
  /** The lines between fences, joined by newlines as written. */
  text: string;
}
type Block = CodeBlock | TextBlock;

/** End of the line that starts at `at` (the index of its newline, or the text's length). */
export function lineEnd(text: string, at: number): number {
  const nl = text.indexOf('\n', at);
  return nl === -1 ? text.length : nl;
}

/** Splits markdown into fenced code blocks and runs of other lines. An unclosed fence runs to the end. */
export function splitBlocks(markdown: string): Block[] {
  const text = markdown.includes('\r') ? markdown.replace(/\r\n?/g, '\n') : markdown;
  const blocks: Block[] = [];
  let textStart = 0;
  for (let at = 0; at <= text.length;) {
    const end = lineEnd(text, at);
    const open = mayBeFence(text, at) ? fenceOpening(text, at, end) : undefined;
    if (!open) {
      at = end + 1;
      continue;
    }
    if (at > textStart) blocks.push({ kind: 'text', text: text.slice(textStart, at - 1) });
    const codeStart = end + 1;
    let codeEnd = text.length;
    let next = text.length + 1;
    for (let line = codeStart; line <= text.length;) {
      const e = lineEnd(text, line);
      if (mayBeFence(text, line) && closesFence(text, line, e, open.marker)) {
        codeEnd = line - 1;
        next = e + 1;
        break;
      }
      line = e + 1;
    }
    blocks.push({ kind: 'code', lang: open.lang, code: codeStart <= codeEnd ? text.slice(codeStart, codeEnd) : '' });
    at = next;
    textStart = next;
  }
  if (textStart < text.length) blocks.push({ kind: 'text', text: text.slice(textStart) });
  return blocks;
}

/**
 * Rewrites the lines of `text` that `shape` changes, leaving the others as they are without copying them
 * one by one. `shape` sees only lines that start (after indentation) with one of `starts`.
 */
export function mapLines(text: string, starts: string, shape: (line: string) => string | undefined): string {
  let out = '';
  let last = 0;
  for (let at = 0; at <= text.length;) {
    const end = lineEnd(text, at);
    let i = at;
    while (i < end && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
    if (i < end && starts.includes(text[i])) {
      const shaped = shape(text.slice(at, end));
      if (shaped !== undefined) {
        out += text.slice(last, at) + shaped;
        last = end;
      }
    }
    at = end + 1;
  }
  return last === 0 ? text : out + text.slice(last);
}

// ---------------------------------------------------------------------------------------------------------
// Line shapes.

/** `# Title ##` -> { level, text } (text without the closing #s), else undefined. */
export function heading(line: string): { level: number; text: string } | undefined {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === 32) i++;
  let level = 0;
  while (line[i + level] === '#') level++;
  if (level < 1 || level > 6) return undefined;
  const rest = line.charCodeAt(i + level);
  if (rest !== 32 && rest !== 9) return undefined;
  let end = line.length;
  while (end > i + level && (line[end - 1] === '#' || line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
  return { level, text: line.slice(i + level, end).trim() };
}

/** `---`, `* * *`, `___`: three or more of one of - * _ and nothing else but spaces. Stops at the first other character. */
export function isThematicBreak(line: string): boolean {
  let i = 0;
  while (line.charCodeAt(i) === 32) i++;
  if (i > 3) return false;
  const ch = line[i];
  if (ch !== '-' && ch !== '*' && ch !== '_') return false;
  let count = 0;
  for (; i < line.length; i++) {
    const c = line[i];
    if (c === ch) count++;
    else if (c !== ' ' && c !== '\t') return false;
  }
  return count >= 3;
}

/** `- item` / `* item` / `+ item` -> indentation and the item text, else undefined. */
export function bullet(line: string): { indent: string; text: string } | undefined {
  let i = 0;
  while (line[i] === ' ' || line[i] === '\t') i++;
  const ch = line[i];
  if ((ch !== '-' && ch !== '*' && ch !== '+') || (line[i + 1] !== ' ' && line[i + 1] !== '\t')) return undefined;
  let j = i + 1;
  while (line[j] === ' ' || line[j] === '\t') j++;
  return { indent: line.slice(0, i), text: line.slice(j) };
}

/** `> quoted` -> the quoted text, else undefined. */
export function quote(line: string, gt = '>'): string | undefined {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === 32) i++;
  if (!line.startsWith(gt, i)) return undefined;
  i += gt.length;
  if (line[i] === ' ' || line[i] === '\t') i++;
  return line.slice(i);
}

/** Collapses three or more newlines into two, without a regex over long runs. */
export function collapseBlankLines(text: string): string {
  return text.includes('\n\n\n') ? text.replace(/\n{3,}/g, '\n\n') : text;
}
