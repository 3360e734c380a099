// Reading an agent CLI's output: one JSON value or JSON Lines (with the lines a CLI prints before them), the HTTP
// status an error names, and the failures that end the same way again. The presets (presets.ts) read their CLI's
// documented shapes with these.
import { HookwiseError } from '@hookwise/core';

/** A failed run as the CLI's output tells it. */
export interface PresetFailure {
  /** One sentence for the dead letter and the log. */
  text: string;
  /** False for what ends the same way again: a turn or budget limit, a refused key, a 4xx from the model API. */
  retryable: boolean;
}

export function failed(title: string, what: string, retryable: boolean): HookwiseError {
  return new HookwiseError('HW_E_AGENT', `${title}: ${what}`, { retryable });
}

/** An HTTP status named in a CLI's error text ("401 Unauthorized", "status 400"), or undefined. */
export function statusIn(text: string): number | undefined {
  const match = /\b(?:status(?: code)?:? |API Error: |HTTP )?([45]\d\d)\b(?= |:|\)|$)/.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** A model API status that ends the same way again: a 4xx other than timeouts, conflicts and rate limits. */
export function permanentStatus(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && ![408, 409, 425, 429].includes(status);
}

/** Words of a refused credential, for CLIs that report one without a status. */
export const AUTH_FAILURE = /authenticat|unauthori[sz]ed|invalid (?:x-)?api[ _-]?key|invalid_api_key|not logged in|please run \/login|credit balance/i;

/** One JSON value from stdout; tolerates lines printed before it (update notices, warnings). */
export function parseJsonOutput(title: string, stdout: string): unknown {
  const text = stdout.trim();
  if (!text) throw failed(title, 'printed nothing on stdout where its JSON output was expected', true);
  try {
    return JSON.parse(text);
  } catch {
    const start = text.search(/^[[{]/m);
    if (start > 0) {
      try {
        return JSON.parse(text.slice(start));
      } catch {
        /* reported below */
      }
    }
    throw failed(
      title,
      `its output is not the JSON it documents (starts with ${JSON.stringify(text.slice(0, 120))}); is it an old version, or was the output cut at max_output_bytes?`,
      false,
    );
  }
}

/** JSON Lines: every line that is a JSON object; other lines (progress, warnings) are skipped. */
export function parseJsonLines(stdout: string): Array<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = [];
  for (const line of stdout.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) continue;
    try {
      const value = JSON.parse(trimmed) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value)) events.push(value as Record<string, unknown>);
    } catch {
      /* a partial line (output cut): the events before it still count */
    }
  }
  return events;
}

export const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
