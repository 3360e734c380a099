// Small markdown conversions for platforms that do not render markdown: plain text (SMS) and a safe HTML
// subset (Matrix formatted_body, e-mail). Deliberately small: agent answers use a handful of constructs.

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)[^\n]*\n([\s\S]*?)\n {0,3}\1[`~]*[ \t]*$/gm;

/** Strips markdown syntax and keeps the words: links become "text (url)", code keeps its content. */
export function markdownToPlainText(markdown: string): string {
  const blocks: string[] = [];
  let text = markdown.replace(FENCE, (_m, _f, _lang, code: string) => `\uE000${blocks.push(code) - 1}\uE000`);
  text = text
    .replace(/!\[([^\]]*)\]\(([^)\s]+)[^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\(([^)\s]+)[^)]*\)/g, (_m, label: string, url: string) => (label === url ? url : `${label} (${url})`))
    .replace(/<(https?:\/\/[^>\s]+)>/g, '$1')
    .replace(/^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/gm, '$1')
    .replace(/^ {0,3}>[ \t]?/gm, '')
    .replace(/^ {0,3}([-*_])([ \t]*\1){2,}[ \t]*$/gm, '')
    .replace(/^(\s*)[*+][ \t]+/gm, '$1- ')
    .replace(/`([^`\n]+)`/g, '$1')
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2')
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?!\w)/g, '$1$2')
    .replace(/(^|[^\w_])_(?=\S)([^_\n]*?\S)_(?!\w)/g, '$1$2')
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1')
    .replace(/\n{3,}/g, '\n\n');
  return text.replace(/\uE000(\d+)\uE000/g, (_m, i: string) => blocks[Number(i)]).trim();
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function inlineToHtml(escaped: string): string {
  const codes: string[] = [];
  return escaped
    .replace(/`([^`\n]+)`/g, (_m, code: string) => `\uE000${codes.push(code) - 1}\uE000`)
    // Only http(s) and mailto links: a javascript: URL in an agent answer must not become clickable.
    .replace(/\[([^\]]+)\]\(((?:https?:\/\/|mailto:)[^)\s]+)\)/g, '<a href="$2">$1</a>')
    .replace(/(\*\*|__)(?=\S)(.*?\S)\1/g, '<strong>$2</strong>')
    .replace(/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?!\w)/g, '$1<em>$2</em>')
    .replace(/(^|[^\w_])_(?=\S)([^_]*?\S)_(?!\w)/g, '$1<em>$2</em>')
    .replace(/~~(?=\S)(.*?\S)~~/g, '<del>$1</del>')
    .replace(/\uE000(\d+)\uE000/g, (_m, i: string) => `<code>${codes[Number(i)]}</code>`);
}

/** Converts markdown to a small HTML subset: p, br, h1-h6, strong, em, del, code, pre, a, ul/ol/li, blockquote. */
export function markdownToHtml(markdown: string): string {
  const out: string[] = [];
  const blocks = markdown.replace(/\r\n/g, '\n').split(/\n{2,}/);
  // Re-join blocks that a blank line inside a code fence split apart.
  const merged: string[] = [];
  for (const block of blocks) {
    const last = merged[merged.length - 1];
    if (last !== undefined && (last.match(/^ {0,3}```/gm)?.length ?? 0) % 2 === 1) merged[merged.length - 1] = `${last}\n\n${block}`;
    else merged.push(block);
  }
  for (const block of merged) {
    const fence = /^ {0,3}```\s*([\w+-]*)[^\n]*\n([\s\S]*?)(?:\n {0,3}```\s*)?$/.exec(block);
    if (fence) {
      const cls = fence[1] ? ` class="language-${escapeHtml(fence[1])}"` : '';
      out.push(`<pre><code${cls}>${escapeHtml(fence[2])}</code></pre>`);
      continue;
    }
    const esc = escapeHtml(block.trim());
    if (!esc) continue;
    const heading = /^(#{1,6})[ \t]+(.*?)[ \t#]*$/.exec(esc);
    if (heading && !esc.includes('\n')) {
      out.push(`<h${heading[1].length}>${inlineToHtml(heading[2])}</h${heading[1].length}>`);
    } else if (/^[-*+][ \t]/.test(esc)) {
      out.push(`<ul>${esc.split('\n').map((l) => `<li>${inlineToHtml(l.replace(/^\s*[-*+][ \t]+/, ''))}</li>`).join('')}</ul>`);
    } else if (/^\d+[.)][ \t]/.test(esc)) {
      out.push(`<ol>${esc.split('\n').map((l) => `<li>${inlineToHtml(l.replace(/^\s*\d+[.)][ \t]+/, ''))}</li>`).join('')}</ol>`);
    } else if (esc.startsWith('&gt;')) {
      out.push(`<blockquote>${inlineToHtml(esc.replace(/^&gt;[ \t]?/gm, '')).replace(/\n/g, '<br>')}</blockquote>`);
    } else {
      out.push(`<p>${inlineToHtml(esc).replace(/\n/g, '<br>')}</p>`);
    }
  }
  return out.join('\n');
}
