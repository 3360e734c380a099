// Small markdown conversions for platforms that do not render markdown as written: plain text (SMS), a safe
// HTML subset (Matrix formatted_body, e-mail) and Slack's mrkdwn. Deliberately small: agent answers use a
// handful of constructs. Every pass is a forward scan that never goes back over text it has passed (no
// regex that backtracks), so the time is linear in the answer's length whatever the agent wrote.
import { bullet, collapseBlankLines, heading, isThematicBreak, lineEnd, mapLines, quote, splitBlocks } from './markdown-blocks';
import { convertInline, type InlineStyle, Kept, withoutPlaceholders } from './markdown-inline';
import { isSpace } from './markdown-spans';

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
