// Builds a subscription entry from `webhook subscribe` flags, merged over the entry it replaces (if any).
import { randomBytes } from 'node:crypto';
import type { SubscriptionEntry } from '@hookwise/gateway';
import { parseCsv } from './csv-list';

export interface SubscribeFlags {
  description?: string;
  events?: string;
  prompt?: string;
  skills?: string;
  deliver?: string;
  'deliver-chat-id'?: string;
  'deliver-extra'?: string[];
  secret?: string;
  'rotate-secret'?: boolean;
  source?: string;
  'source-option'?: string[];
}

/** 32 random bytes, base64url: 43 characters, safe in URLs, headers and YAML. */
export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** `key=value` pairs; the value may itself contain '='. */
export function parseKeyValues(pairs: readonly string[], flag = '--deliver-extra repo=owner/name'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`${flag.split(' ')[0]} expects key=value (e.g. ${flag}), got '${pair}'`);
    out[pair.slice(0, at).trim()] = pair.slice(at + 1);
  }
  return out;
}

/** `key=value` source options; values that read as JSON (numbers, booleans) are taken as such. */
function sourceOptionValues(pairs: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, text] of Object.entries(parseKeyValues(pairs, '--source-option tolerance_seconds=600'))) {
    try {
      out[key] = JSON.parse(text);
    } catch {
      out[key] = text;
    }
  }
  return out;
}

/** The entry's secret, or with --rotate-secret a new one first and the current one kept second. */
function secretsFor(flags: SubscribeFlags, existing: SubscriptionEntry | undefined): Pick<SubscriptionEntry, 'secret' | 'secrets'> {
  const current = existing?.secrets?.[0] ?? existing?.secret;
  if (flags['rotate-secret']) {
    const fresh = flags.secret ?? generateSecret();
    return current ? { secrets: [fresh, current] } : { secret: fresh };
  }
  if (flags.secret !== undefined) return { secret: flags.secret };
  if (existing?.secrets) return { secrets: existing.secrets };
  return { secret: current ?? generateSecret() };
}

/**
 * Flags that are given replace the old values, flags that are not keep them (so `--prompt` alone changes only
 * the prompt). Delivery settings go together: any of --deliver, --deliver-chat-id, --deliver-extra rebuilds
 * deliver_extra, so that a `repo` meant for one deliverer does not linger for another. The secret is kept
 * unless --secret is given.
 */
/** A --deliver value: one id as written, several comma-separated ids as a list. */
export function deliverValue(flag: string): string | string[] {
  const ids = parseCsv(flag);
  return ids.length > 1 ? ids : (ids[0] ?? flag);
}

export function buildEntry(flags: SubscribeFlags, existing: SubscriptionEntry | undefined, now: Date): SubscriptionEntry {
  const deliveryGiven = flags.deliver !== undefined || flags['deliver-chat-id'] !== undefined || (flags['deliver-extra']?.length ?? 0) > 0;
  let deliverExtra = existing?.deliver_extra ?? {};
  if (deliveryGiven) {
    deliverExtra = {
      ...(flags['deliver-chat-id'] !== undefined ? { chat_id: flags['deliver-chat-id'] } : {}),
      ...parseKeyValues(flags['deliver-extra'] ?? []),
    };
  }
  const entry: SubscriptionEntry = {
    description: flags.description ?? existing?.description,
    events: flags.events !== undefined ? parseCsv(flags.events) : (existing?.events ?? []),
    ...secretsFor(flags, existing),
    prompt: flags.prompt ?? existing?.prompt,
    skills: flags.skills !== undefined ? parseCsv(flags.skills) : (existing?.skills ?? []),
    // `--deliver github_comment,slack`: a list of destinations (fan-out), sharing deliver_extra; one id stays a string.
    deliver: flags.deliver !== undefined ? deliverValue(flags.deliver) : (existing?.deliver ?? 'log'),
    deliver_extra: deliverExtra,
    created_at: existing?.created_at ?? now.toISOString(),
    updated_at: now.toISOString(),
  };
  // Who made it stays known: an agent run's entry keeps its mark (`hookwise webhook list` shows it).
  if (existing?.created_by) entry.created_by = { ...existing.created_by };
  const source = flags.source ?? existing?.source;
  if (source !== undefined) entry.source = source;
  const sourceOptions = flags['source-option']?.length ? sourceOptionValues(flags['source-option']) : existing?.source_options;
  if (sourceOptions !== undefined) entry.source_options = sourceOptions;
  // Keep the file tidy: no `"prompt": null`-style noise for unset optional fields.
  if (entry.description === undefined) delete entry.description;
  if (entry.prompt === undefined) delete entry.prompt;
  return entry;
}
