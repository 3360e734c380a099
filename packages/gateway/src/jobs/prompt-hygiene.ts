// Payload hygiene before a payload reaches a prompt: strangers write the payload, and text a human
// reviewer never sees (zero-width, bidirectional and variation-selector characters, HTML and Markdown comments that
// GitHub and GitLab do not render) is still read by the model. It is removed from every payload string before the
// route's template is rendered; the template's own text is the operator's and stays as written. The per-run
// fence belongs to the runners that speak to a model (@hookwise/agent-kit's fenceUntrusted, next to the
// untrusted-input note), so the `echo` agent and a plain `command` get the prompt as the SPEC renders it.
import { promptOf, type TemplateJob } from './job-templates';

/**
 * Characters a reader does not see but a model reads: zero-width spaces and joiners, marks and bidirectional
 * embeddings, overrides and isolates (the "Trojan Source" set), word joiner and invisible operators, the BOM,
 * soft hyphen, Mongolian vowel separator, Arabic letter mark, the combining grapheme joiner (U+034F), the Hangul
 * fillers (U+115F, U+1160, U+3164, U+FFA0: blank glyphs), the Khmer inherent vowels (U+17B4, U+17B5), and the
 * Unicode tag block (ASCII smuggling). The combining ones stand outside the class (a class would join them).
 */
const INVISIBLE =
  /\u034F|\u17B4|\u17B5|[\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\u3164\uFEFF\uFFA0]|\uDB40[\uDC00-\uDC7F]/g;
/**
 * Variation selectors (U+FE00-FE0F, U+E0100-E01EF): a run of them after a character renders as that character
 * alone, and each selector can carry a byte ("emoji smuggling"). All go, except one VS16 (U+FE0F) directly after
 * an emoji and not followed by another selector: the emoji presentation of a visible emoji, which carries nothing.
 */
const VARIATION_SELECTORS = /(?<!\p{Emoji})\uFE0F|\uFE0F(?=[\uFE00-\uFE0F\u{E0100}-\u{E01EF}])|[\uFE00-\uFE0E\u{E0100}-\u{E01EF}]/gu;
/** An HTML comment, or one left open until the end of the text (still hidden when rendered). */
const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
/**
 * A Markdown link reference definition on a line of its own (`[//]: # (note)`, `[comment]: <> (note)`,
 * `[x]: https://a "title"`): rendered as nothing, so the "Markdown comment" idiom hides text in its label, address
 * or title (which may go on over lines). One that the text never refers to goes whole; a referenced one keeps its
 * label and address, not its title.
 */
const LINK_DEFINITION =
  /^ {0,3}\[((?:[^[\]\\\n]|\\.){1,999})\]:[ \t]*(<[^>\n]*>|\S+)(?:(?:[ \t]+|[ \t]*\r?\n[ \t]*)(?:"(?:[^"\n]|\n(?![ \t]*\r?\n))*"|'(?:[^'\n]|\n(?![ \t]*\r?\n))*'|\((?:[^)\n]|\n(?![ \t]*\r?\n))*\)))?[ \t]*(?:\r?\n|$)/gm;

/** One string of payload text without invisible characters, smuggling selectors and hidden Markdown or HTML. */
export function cleanText(text: string): string {
  return withoutHiddenDefinitions(text.replace(INVISIBLE, '').replace(VARIATION_SELECTORS, '').replace(HTML_COMMENT, ''));
}

function withoutHiddenDefinitions(text: string): string {
  if (!text.includes(']:')) return text;
  const rest = text.replace(LINK_DEFINITION, '').toLowerCase();
  return text.replace(LINK_DEFINITION, (line: string, label: string, destination: string) => {
    const referenced = rest.includes(`[${label.toLowerCase()}]`);
    return referenced ? `[${label}]: ${destination}${/\n$/.test(line) ? '\n' : ''}` : '';
  });
}

/** A payload (any JSON value) with every string cleaned, keys included; other values as they are. */
export function cleanPayload(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return cleanText(value);
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => cleanPayload(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[cleanText(key)] = cleanPayload(item, depth + 1);
  return out;
}

export interface RunPromptOptions {
  /** The route's `agent.prompt_hygiene` (default true); false: the payload rendered as it came. */
  hygiene?: boolean;
}

/** Whether a route keeps hygiene on: `agent: { prompt_hygiene: false }` on the route turns it off. */
export function promptHygieneOf(route: { agent?: Record<string, unknown> }): boolean {
  return route.agent?.prompt_hygiene !== false;
}

/** The prompt of one agent run: the payloads cleaned, the route's template rendered over them. */
export function runPromptOf(template: string | undefined, job: TemplateJob, options: RunPromptOptions = {}): string {
  if (options.hygiene === false) return promptOf(template, job);
  const cleaned: TemplateJob = {
    payload: cleanPayload(job.payload),
    coalesced: job.coalesced && { ...job.coalesced, payloads: job.coalesced.payloads?.map((p) => cleanPayload(p)) },
    previous: job.previous === undefined ? undefined : cleanPayload(job.previous),
  };
  return promptOf(template, cleaned);
}
