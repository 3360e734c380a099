// What `hookwise webhook subscribe` keeps of a subscription an agent run made (its entry's `created_by`): the
// settings the agent chose (prompt, where answers go, filter, ...) that no flag of this command replaces. The
// operator sees them before the route goes live (a rotated secret handed to a sender makes it live), and keeps them
// only by saying so (--keep-agent-settings), which marks the entry adopted: no agent run may change it afterwards.
import type { SubscriptionEntry } from '@hookwise/gateway';

/** The flags that replace each setting an agent may set (job-channel-requests.ts CHANNEL_KEYS). */
const REPLACED_BY: Record<string, readonly string[]> = {
  description: ['description'],
  events: ['events'],
  prompt: ['prompt'],
  skills: ['skills'],
  deliver: ['deliver', 'deliver-chat-id', 'deliver-extra'],
  filter: ['filter', 'filter-expression'],
  transform: ['transform-expression', 'transform-command'],
};

function given(flags: Record<string, unknown>, names: readonly string[]): boolean {
  return names.some((name) => flags[name] !== undefined && !(Array.isArray(flags[name]) && (flags[name] as unknown[]).length === 0));
}

/** One line per setting the agent chose that this command would keep; empty when there is none. */
export function keptAgentSettings(entry: SubscriptionEntry, flags: Record<string, unknown>): string[] {
  const lines: string[] = [];
  const keep = (key: string) => !given(flags, REPLACED_BY[key]);
  if (entry.description && keep('description')) lines.push(`description: ${JSON.stringify(entry.description)}`);
  if (entry.events?.length && keep('events')) lines.push(`events:      ${entry.events.join(', ')}`);
  if (entry.prompt && keep('prompt')) lines.push(`prompt:      ${JSON.stringify(entry.prompt)}`);
  if (entry.skills?.length && keep('skills')) lines.push(`skills:      ${entry.skills.join(', ')}`);
  if (keep('deliver')) {
    const deliver = typeof entry.deliver === 'string' ? entry.deliver : JSON.stringify(entry.deliver);
    const extra = Object.entries(entry.deliver_extra ?? {}).map(([key, value]) => `${key}=${String(value)}`);
    if (deliver !== 'log' || extra.length) lines.push(`deliver:     ${deliver}${extra.length ? ` (${extra.join(', ')})` : ''}`);
  }
  if (entry.filter !== undefined && keep('filter')) lines.push(`filter:      ${JSON.stringify(entry.filter)}`);
  if (entry.transform !== undefined && keep('transform')) lines.push(`transform:   ${JSON.stringify(entry.transform)}`);
  return lines;
}

/** Whether the entry was made by an agent run and not adopted by the operator since. */
export function agentMade(entry: SubscriptionEntry | undefined): entry is SubscriptionEntry & { created_by: NonNullable<SubscriptionEntry['created_by']> } {
  return entry?.created_by !== undefined && entry.created_by.adopted_at === undefined;
}

/** Why the command stops: the kept settings, and the three ways on. */
export function agentSettingsRefusal(
  name: string,
  entry: SubscriptionEntry & { created_by: NonNullable<SubscriptionEntry['created_by']> },
  kept: string[],
): string {
  const by = entry.created_by;
  return [
    `'${name}' was made by an agent run (route '${by.route}', job ${by.job}), and this command would keep what the agent set:`,
    ...kept.map((line) => `  ${line}`),
    'Nothing was changed. Check these settings, then either:',
    `  keep them:     hookwise webhook subscribe ${name} --keep-agent-settings ... (the entry becomes yours; no agent run may change it)`,
    '  replace them:  give the flags that set them (--prompt, --deliver, --deliver-chat-id, --filter, ...)',
    `  or remove it:  hookwise webhook remove ${name}`,
  ].join('\n');
}
