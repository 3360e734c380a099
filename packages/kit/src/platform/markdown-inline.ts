// Inline markdown of one text run in a target style (plain, HTML, mrkdwn): rendered pieces are set aside behind
// placeholders so that no later pass reads them again.
import { PLACEHOLDER, replaceAutolinks, replaceCodeSpans, replaceDelimited, replaceEmphasis, replaceLinks } from './markdown-spans';

export interface InlineStyle {
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
export class Kept {
  readonly pieces: string[] = [];
  keep = (rendered: string): string => `${PLACEHOLDER}${this.pieces.push(rendered) - 1}${PLACEHOLDER}`;
}

/** Inline markdown of one text run in `style`: code spans, images, links and autolinks are set aside, then emphasis. */
export function convertInline(text: string, style: InlineStyle, kept = new Kept()): string {
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
export function withoutPlaceholders(text: string): string {
  return text.includes(PLACEHOLDER) ? text.split(PLACEHOLDER).join('\uFFFD') : text;
}
