// Payload hygiene before a payload reaches a prompt: strangers write the payload, and text a human
// reviewer never sees (zero-width and bidirectional control characters, HTML comments that GitHub and GitLab do
// not render) is still read by the model. It is removed from every payload string before the route's template is
// rendered; the template's own text is the operator's and stays as written. The per-run fence belongs to the
// runners that speak to a model (@hookwise/agent-kit's fenceUntrusted, next to the untrusted-input note), so the
// `echo` agent and a plain `command` get the prompt as the SPEC renders it.
import { promptOf, type TemplateJob } from './job-templates';

/**
 * Characters a reader does not see but a model reads: zero-width spaces and joiners, marks and bidirectional
 * embeddings, overrides and isolates (the "Trojan Source" set), word joiner and invisible operators, the BOM,
 * soft hyphen, Mongolian vowel separator, Arabic letter mark, and the Unicode tag block (ASCII smuggling).
 */
const INVISIBLE = /[\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|\uDB40[\uDC00-\uDC7F]/g;
/** An HTML comment, or one left open until the end of the text (still hidden when rendered). */
const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g;

/** One string of payload text without invisible characters and HTML comments. */
export function cleanText(text: string): string {
  return text.replace(INVISIBLE, '').replace(HTML_COMMENT, '');
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
