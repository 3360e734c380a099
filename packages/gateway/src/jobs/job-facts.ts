// What a job's run facts say to people: how a done job ended (delivered, silent, skipped), the tokens its agent run
// used, why it waits, and the events a coalesced job stands for. One home for the CLI (`deliveries show` and
// `list`), the admin API and the dashboard, so that each says the same thing in the same words.
import type { AgentUsage, Job, JobOutcome } from '@hookwise/core';

/** What `deliveries show` and the dashboard say about a silent job. */
export const SILENT_TEXT = 'silent: the agent had nothing to say; nothing delivered';

/** How a done job ended; undefined while it is not done (pending, running) or dead. Jobs stored before outcomes existed were delivered. */
export function jobOutcome(job: Pick<Job, 'status' | 'outcome'>): JobOutcome | undefined {
  return job.status === 'done' ? (job.outcome ?? 'delivered') : undefined;
}

/** The outcome in a sentence: "delivered", the silent text, or "skipped: <why>" (a silent job's note is shown apart). */
export function outcomeText(job: Pick<Job, 'status' | 'outcome' | 'note'>): string | undefined {
  const outcome = jobOutcome(job);
  if (outcome === 'silent') return SILENT_TEXT;
  if (outcome === 'skipped') return `skipped: ${job.note ?? 'the agent did not run'}`;
  if (outcome === 'denied' || outcome === 'expired') return `${outcome}: ${job.note ?? 'the approval ended it; nothing delivered'}`;
  if (outcome === 'budget_exceeded') return `budget exceeded: ${job.note ?? 'a spend cap stopped the run'}; nothing delivered`;
  return outcome;
}

/** A token count with thousands separators, as people read it. */
export function tokenCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** "$0.0123" (four decimals below a dollar, two above). */
export function dollars(usd: number): string {
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

/**
 * "1,200 in / 340 out (800 cached, 100 cache write), $0.0123 over 3 model calls"; undefined when the runner reported
 * no usage (the cost and calls are the model proxy's).
 */
export function usageText(usage: AgentUsage | undefined): string | undefined {
  // Usage that only says how the run was sandboxed holds no tokens.
  if (!usage || TOKEN_FIELDS.every((field) => usage[field] === undefined)) return undefined;
  const count = (value: number | undefined) => (value === undefined ? '?' : tokenCount(value));
  const cache = [
    usage.cachedInputTokens !== undefined ? `${tokenCount(usage.cachedInputTokens)} cached` : '',
    usage.cacheWriteTokens !== undefined ? `${tokenCount(usage.cacheWriteTokens)} cache write` : '',
  ].filter(Boolean);
  const calls = usage.modelCalls === undefined ? '' : ` over ${usage.modelCalls} model call${usage.modelCalls === 1 ? '' : 's'}`;
  const spend = usage.costUsd !== undefined ? `, ${dollars(usage.costUsd)}${calls}` : calls ? `,${calls}` : '';
  return `${count(usage.inputTokens)} in / ${count(usage.outputTokens)} out${cache.length ? ` (${cache.join(', ')})` : ''}${spend}`;
}

const TOKEN_FIELDS = ['inputTokens', 'outputTokens', 'cachedInputTokens', 'cacheWriteTokens'] as const;

/**
 * How the job's agent run was isolated, e.g. "sandboxed (mode auto): sandboxed (agent.sandbox.mode auto): bubblewrap
 * at /usr/bin/bwrap works"; undefined for jobs run before the sandbox existed or not run yet.
 */
export function sandboxText(usage: AgentUsage | undefined): string | undefined {
  const sandbox = usage?.sandbox;
  if (!sandbox) return undefined;
  return `${sandbox.sandboxed ? 'sandboxed' : 'UNSANDBOXED'} (mode ${sandbox.mode}): ${sandbox.reason}`;
}

/** How many webhook events a job stands for: 1, or the coalesced ones. */
export function eventCount(job: Pick<Job, 'coalesced'>): number {
  return job.coalesced?.deliveryIds.length ?? 1;
}

/** "stands for 3 events: a, b, c" for a coalesced job; undefined for a job of one event. */
export function coalescedText(job: Pick<Job, 'coalesced'>): string | undefined {
  const ids = job.coalesced?.deliveryIds;
  if (!ids) return undefined;
  return `stands for ${ids.length} event${ids.length === 1 ? '' : 's'}: ${ids.join(', ')}`;
}

/** Why a pending job waits (a spent budget), when something holds it; undefined for a job that is just due. */
export function waitingNote(job: Pick<Job, 'status' | 'note'>): string | undefined {
  return job.status === 'pending' && job.note ? job.note : undefined;
}
