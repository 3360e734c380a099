// Small markdown conversions for platforms that do not render markdown as written: plain text (SMS), a safe
// HTML subset (Matrix formatted_body, e-mail) and Slack's mrkdwn. Deliberately small: agent answers use a
// handful of constructs. Every pass is a forward scan that never goes back over text it has passed (no
// regex that backtracks), so the time is linear in the answer's length whatever the agent wrote.

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
function lineEnd(text: string, at: number): number {
  const nl = text.indexOf('\n', at);
  return nl === -1 ? text.length : nl;
}

/** Splits markdown into fenced code blocks and runs of other lines. An unclosed fence runs to the end. */
function splitBlocks(markdown: string): Block[] {
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
function mapLines(text: string, starts: string, shape: (line: string) => string | undefined): string {
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
// Inline spans, each found by one forward scan.

const PLACEHOLDER = '\uE000';

function isSpace(code: number): boolean {
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
function replaceDelimited(text: string, delim: string, render: (inner: string) => string, singleLine: boolean): string {
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
function replaceEmphasis(text: string, ch: string, render: (inner: string) => string): string {
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
function replaceCodeSpans(text: string, render: (code: string) => string): string {
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
function replaceLinks(text: string, bang: boolean, render: (label: string, url: string) => string): string {
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
function replaceAutolinks(text: string, lt: string, gt: string, render: (url: string) => string): string {
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

interface InlineStyle {
  /** How `<` and `>` appear in the text being converted (escaped or not). */
  lt: string;
  gt: string;
  code(code: string): string;
  /** undefined: leave the link as written (e.g. a javascript: URL in HTML). */
  link(label: string, url: string): string | undefined;
  image?(alt: string, url: string): string;
  autolink(url: string): string;
  strong(inner: string): string;
  em(inner: string): string;
  del(inner: string): string;
}

/**
 * Emphasis in `style`: `*em*`/`_em_` first (a `**` never opens or closes those), then `**`/`__` and `~~`, so
 * that mrkdwn's `*bold*` is not read again as emphasis.
 */
function convertEmphasis(text: string, style: InlineStyle): string {
  let t = replaceEmphasis(text, '*', style.em);
  t = replaceEmphasis(t, '_', style.em);
  t = replaceDelimited(t, '**', style.strong, false);
  t = replaceDelimited(t, '__', style.strong, false);
  return replaceDelimited(t, '~~', style.del, false);
}

/** Collects rendered pieces behind placeholders, so that no later pass reads them again (a URL's underscores are not italics). */
class Kept {
  readonly pieces: string[] = [];
  keep = (rendered: string): string => `${PLACEHOLDER}${this.pieces.push(rendered) - 1}${PLACEHOLDER}`;
}

/** Inline markdown of one text run in `style`: code spans, images, links and autolinks are set aside, then emphasis. */
function convertInline(text: string, style: InlineStyle, kept = new Kept()): string {
  let t = replaceCodeSpans(text, (code) => kept.keep(style.code(code)));
  if (style.image) t = replaceLinks(t, true, (alt, url) => kept.keep(style.image!(alt, url)));
  t = replaceLinks(t, false, (label, url) => {
    const rendered = style.link(convertEmphasis(label, style), url);
    return rendered === undefined ? `[${label}](${url})` : kept.keep(rendered);
  });
  t = replaceAutolinks(t, style.lt, style.gt, (url) => kept.keep(style.autolink(url)));
  return restore(convertEmphasis(t, style), kept.pieces);
}

/** Puts what was set aside back; a kept piece may itself hold placeholders (bold around a code span). */
function restore(text: string, kept: string[]): string {
  if (!kept.length) return text;
  let out = '';
  let last = 0;
  for (let i = text.indexOf(PLACEHOLDER); i !== -1;) {
    const j = text.indexOf(PLACEHOLDER, i + 1);
    if (j === -1) break;
    const index = Number(text.slice(i + 1, j));
    if (j > i + 1 && Number.isInteger(index) && index < kept.length) {
      out += text.slice(last, i) + restore(kept[index], kept);
      last = j + 1;
      i = text.indexOf(PLACEHOLDER, last);
    } else {
      i = j;
    }
  }
  return out + text.slice(last);
}

/** The agent's text can not forge a placeholder. */
function withoutPlaceholders(text: string): string {
  return text.includes(PLACEHOLDER) ? text.split(PLACEHOLDER).join('\uFFFD') : text;
}

// ---------------------------------------------------------------------------------------------------------
// Line shapes.

/** `# Title ##` -> { level, text } (text without the closing #s), else undefined. */
function heading(line: string): { level: number; text: string } | undefined {
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
function isThematicBreak(line: string): boolean {
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
function bullet(line: string): { indent: string; text: string } | undefined {
  let i = 0;
  while (line[i] === ' ' || line[i] === '\t') i++;
  const ch = line[i];
  if ((ch !== '-' && ch !== '*' && ch !== '+') || (line[i + 1] !== ' ' && line[i + 1] !== '\t')) return undefined;
  let j = i + 1;
  while (line[j] === ' ' || line[j] === '\t') j++;
  return { indent: line.slice(0, i), text: line.slice(j) };
}

/** `> quoted` -> the quoted text, else undefined. */
function quote(line: string, gt = '>'): string | undefined {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === 32) i++;
  if (!line.startsWith(gt, i)) return undefined;
  i += gt.length;
  if (line[i] === ' ' || line[i] === '\t') i++;
  return line.slice(i);
}

/** Collapses three or more newlines into two, without a regex over long runs. */
function collapseBlankLines(text: string): string {
  return text.includes('\n\n\n') ? text.replace(/\n{3,}/g, '\n\n') : text;
}

// ---------------------------------------------------------------------------------------------------------
// Plain text.

const PLAIN: InlineStyle = {
  lt: '<',
  gt: '>',
  code: (code) => code,
  link: (label, url) => (label === url ? url : `${label} (${url})`),
  image: (alt) => alt,
  autolink: (url) => url,
  strong: (inner) => inner,
  em: (inner) => inner,
  del: (inner) => inner,
};

/** A line's markdown shape as plain text: no heading marks, quote marks or rules; bullets as "- ". */
function plainLine(line: string): string | undefined {
  if (isThematicBreak(line)) return '';
  const h = heading(line);
  if (h) return h.text;
  const q = quote(line);
  const body = q ?? line;
  const b = bullet(body);
  if (b) return `${b.indent}- ${b.text}`;
  return q;
}

/** Strips markdown syntax and keeps the words: links become "text (url)", code keeps its content. */
export function markdownToPlainText(markdown: string): string {
  const out: string[] = [];
  for (const block of splitBlocks(withoutPlaceholders(markdown))) {
    out.push(block.kind === 'code' ? block.code : convertInline(mapLines(block.text, '#>-*_+', plainLine), PLAIN));
  }
  return collapseBlankLines(out.join('\n')).trim();
}

// ---------------------------------------------------------------------------------------------------------
// HTML.

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

const HTML_SPECIAL = /[&<>"']/;

export function escapeHtml(text: string): string {
  return HTML_SPECIAL.test(text) ? text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]) : text;
}

/** Only http(s) and mailto links: a javascript: URL in an agent answer must not become clickable. */
const SAFE_URL = /^(?:https?:\/\/|mailto:)/i;

const HTML: InlineStyle = {
  lt: '&lt;',
  gt: '&gt;',
  code: (code) => `<code>${code}</code>`,
  link: (label, url) => (SAFE_URL.test(url) ? `<a href="${url}">${label}</a>` : undefined),
  autolink: (url) => `<a href="${url}">${url}</a>`,
  strong: (inner) => `<strong>${inner}</strong>`,
  em: (inner) => `<em>${inner}</em>`,
  del: (inner) => `<del>${inner}</del>`,
};

/** One paragraph (already HTML-escaped) as a heading, list, quote or paragraph. */
function htmlBlock(esc: string): string {
  const h = esc.includes('\n') ? undefined : heading(esc);
  if (h) return `<h${h.level}>${convertInline(h.text, HTML)}</h${h.level}>`;
  if (/^[-*+][ \t]/.test(esc)) {
    return `<ul>${esc
      .split('\n')
      .map((l) => `<li>${convertInline(bullet(l)?.text ?? l.trim(), HTML)}</li>`)
      .join('')}</ul>`;
  }
  if (/^\d+[.)][ \t]/.test(esc)) {
    return `<ol>${esc
      .split('\n')
      .map((l) => `<li>${convertInline(l.replace(/^[ \t]*\d+[.)][ \t]*/, ''), HTML)}</li>`)
      .join('')}</ol>`;
  }
  if (esc.startsWith('&gt;')) {
    return `<blockquote>${convertInline(
      mapLines(esc, '&', (l) => quote(l, '&gt;')),
      HTML,
    ).replaceAll('\n', '<br>')}</blockquote>`;
  }
  return `<p>${convertInline(esc, HTML).replaceAll('\n', '<br>')}</p>`;
}

/** Converts markdown to a small HTML subset: p, br, h1-h6, strong, em, del, code, pre, a, ul/ol/li, blockquote. */
export function markdownToHtml(markdown: string): string {
  const out: string[] = [];
  for (const block of splitBlocks(withoutPlaceholders(markdown))) {
    if (block.kind === 'code') {
      const cls = block.lang ? ` class="language-${escapeHtml(block.lang)}"` : '';
      out.push(`<pre><code${cls}>${escapeHtml(block.code)}</code></pre>`);
      continue;
    }
    // Paragraphs: runs of lines that are not blank.
    const text = block.text;
    let start = -1;
    for (let at = 0; at <= text.length;) {
      const end = lineEnd(text, at);
      let i = at;
      while (i < end && isSpace(text.charCodeAt(i))) i++;
      const blank = i === end;
      if (!blank && start === -1) start = at;
      if ((blank || end === text.length) && start !== -1) {
        const esc = escapeHtml(text.slice(start, blank ? at : end).trim());
        if (esc) out.push(htmlBlock(esc));
        start = -1;
      }
      at = end + 1;
    }
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// Slack mrkdwn.

const SLACK_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** The three characters Slack reads as control characters in message text, escaped as its docs require. */
export function escapeSlackText(text: string): string {
  return /[&<>]/.test(text) ? text.replace(/[&<>]/g, (ch) => SLACK_ESCAPES[ch]) : text;
}

const MRKDWN: InlineStyle = {
  lt: '&lt;',
  gt: '&gt;',
  code: (code) => `\`${code}\``,
  // Slack's link syntax; a `|` or `>` in the URL would end it early, so such a URL stays as text.
  link: (label, url) => (SAFE_URL.test(url) && !url.includes('|') && !url.includes('&gt;') ? `<${url}|${label}>` : undefined),
  autolink: (url) => `<${url}>`,
  strong: (inner) => `*${inner}*`,
  em: (inner) => `_${inner}_`,
  del: (inner) => `~${inner}~`,
};

/**
 * Converts markdown to Slack mrkdwn: `&`, `<` and `>` escaped everywhere (so that `<!channel>`, `<!here>` or
 * `<@U123>` in an agent's answer shows as text and pings nobody), **bold** -> *bold*, *em* and _em_ -> _em_,
 * ~~del~~ -> ~del~, [text](url) -> <url|text>, headings bold, bullets as "•", code fences without their
 * language (Slack would show it).
 */
export function markdownToMrkdwn(markdown: string): string {
  const out: string[] = [];
  for (const block of splitBlocks(withoutPlaceholders(markdown))) {
    if (block.kind === 'code') {
      out.push(`\`\`\`\n${escapeSlackText(block.code)}\n\`\`\``);
      continue;
    }
    const kept = new Kept();
    const shaped = mapLines(escapeSlackText(block.text), '#&-*_+', (line) => {
      if (isThematicBreak(line)) return '';
      const h = heading(line);
      // A heading is bold as a whole; set aside so that the block's pass does not read its asterisks again.
      if (h) return kept.keep(`*${convertInline(h.text, { ...MRKDWN, strong: (inner) => inner })}*`);
      const q = quote(line, '&gt;');
      // A quote marker is a real `>`: Slack reads it only at the start of a line, where it cannot ping anyone.
      const body = q ?? line;
      const b = bullet(body);
      const shapedBody = b ? `${b.indent}• ${b.text}` : body;
      return q === undefined ? (b ? shapedBody : undefined) : kept.keep('>') + ' ' + shapedBody;
    });
    out.push(convertInline(shaped, MRKDWN, kept));
  }
  return collapseBlankLines(out.join('\n')).trim();
}
