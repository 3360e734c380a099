// Runs a trial: each stored event through the candidate route's filter, prompt, sandbox and agent exactly as the
// worker runs it (the gateway's own AgentStep, runner instances, skills, AgentSandboxes and answer scrubbing, from a
// gateway assembled by openGateway but never started), with nothing delivered: no deliverer is created, the job
// channel through which a run could subscribe or act is not opened, and the answer lands in this trial, not in the
// store. Every trial event leaves through the gateway's one exit for text (its OutboundScrubber) before it is
// printed or stored in trials/<id>.json: the answers, the stored answers and the error texts it shows. Trial runs
// count against no route budget (fresh counters, the budget left out) and add nothing to the
// routes' sums: their tokens are the trial's own, kept in the trial record.
import type { AgentUsage, Job, JobQueue } from '@hookwise/core';
import { errorMessage } from '@hookwise/core';
import {
  AgentStep,
  compileFilter,
  createLogger,
  createMemoryStore,
  INSECURE_NO_AUTH,
  openGateway,
  requestViewOf,
  silentAnswer,
  tokensOf,
  type Gateway,
  type LoadedConfig,
  type Route,
} from '@hookwise/gateway';
import { distributionOptions } from './distribution';
import { outcomeOf } from './trial-events';
import { newTrialId, type TrialEvent, type TrialRecord, type TrialSide, type TrialTotals } from './trial-store';

export interface TrialOptions {
  /** The config (of a profile, or the config dir's own) the trial's gateway is assembled from. */
  loaded: LoadedConfig;
  current: Route;
  candidate: Route;
  jobs: Job[];
  change: Record<string, unknown>;
  selection: Record<string, unknown>;
  concurrency: number;
  /** Stop starting runs once the trial's tokens pass this. */
  maxTokens?: number;
  /** Called as each event is done (in completion order), for progress on stderr. */
  onEvent?: (event: TrialEvent) => void;
}

type Verdict = { passed: true } | { passed: false; reason: string };

/** The route's filter verdict on a stored event, as the pipeline decides it (headers are not stored: none are seen). */
async function filterVerdict(route: Route, job: Job, configDir: string): Promise<Verdict> {
  if (route.filter === undefined) return { passed: true };
  const { filter, problems } = compileFilter(route.filter, `route '${route.name}' filter`, configDir);
  if (!filter) return { passed: false, reason: problems.join('; ') };
  const verdict = await filter.test(job.payload, undefined, filter.namesRequest ? requestViewOf({}, job.event) : undefined);
  return verdict.passed ? { passed: true } : { passed: false, reason: verdict.reason };
}

/** A runner that reports no tokens (echo, most CLIs) leaves usage holding only how the run was sandboxed. */
const hasTokens = (usage: AgentUsage | undefined): boolean => usage?.inputTokens !== undefined || usage?.outputTokens !== undefined;

const silentMarkerOf = (gateway: Gateway, route: Route): string | undefined => route.silentMarker ?? gateway.config.agent.silent_marker;

/** The stored run of the event: its answer, outcome and tokens (the store keeps no run time). */
function oldSide(job: Job, verdict: Verdict): TrialSide {
  const outcome = outcomeOf(job);
  const side: TrialSide = { filter: verdict.passed ? 'passed' : 'filtered', status: outcome ? `${job.status}/${outcome}` : job.status };
  if (!verdict.passed) side.filterReason = verdict.reason;
  if (job.answer !== undefined) side.answer = job.answer;
  side.silent = outcome === 'silent';
  if (job.usage) side.usage = job.usage;
  if (hasTokens(job.usage)) side.tokens = tokensOf(job.usage);
  if (job.answer === undefined && job.errors.length) side.error = job.errors.at(-1)!.message;
  return side;
}

/** One trial run through the worker's agent step; the answer is caught by a job sink instead of being stored. */
async function trialRun(gateway: Gateway, route: Route, job: Job, signal: AbortSignal): Promise<TrialSide> {
  let saved: { text: string; usage?: AgentUsage } | undefined;
  // The agent step stores the answer with saveAnswer; a trial keeps it here, so the stored job never changes.
  const sink = {
    saveAnswer: async (_id: string, _prompt: string, text: string, usage?: AgentUsage) => {
      saved = { text, usage };
    },
  } as unknown as JobQueue;
  const step = new AgentStep({
    jobs: sink,
    logger: gateway.logger,
    agentFor: (r) => gateway.agentFor(r),
    skillsFor: (r) => gateway.skillsFor(r),
    runnerOf: (r) => String(r.agent?.runner ?? gateway.config.agent.runner),
    agentTimeoutMs: gateway.config.agent.timeout_seconds * 1000,
    sandboxes: gateway.sandboxes,
    // The gateway's environment (with <config_dir>/.env, where platform tokens live), not only this process's.
    outbound: gateway.services.outbound,
  });
  const started = performance.now();
  try {
    // A copy: nothing the step does reaches the stored job. No budget: trial runs are not the route's runs.
    await step.run({ ...route, budget: undefined }, structuredClone(job), signal);
  } catch (err) {
    return { filter: 'passed', error: errorMessage(err), durationMs: Math.round(performance.now() - started) };
  }
  const durationMs = Math.round(performance.now() - started);
  if (!saved) return { filter: 'passed', error: 'the run ended without an answer (interrupted)', durationMs };
  const side: TrialSide = { filter: 'passed', answer: saved.text, silent: silentAnswer(saved.text, silentMarkerOf(gateway, route)) !== undefined, durationMs };
  if (saved.usage) {
    side.usage = saved.usage;
    if (hasTokens(saved.usage)) side.tokens = tokensOf(saved.usage);
  }
  return side;
}

function changeOf(old: TrialSide, next: TrialSide): TrialEvent['change'] {
  if (old.filter === 'filtered' && next.filter === 'filtered') return 'both-filtered';
  if (next.filter === 'filtered') return 'filtered-out-now';
  if (next.error) return 'error';
  if (old.filter === 'filtered') return 'passes-now';
  return old.answer === next.answer && Boolean(old.silent) === Boolean(next.silent) ? 'same' : 'changed';
}

export function totalsOf(events: TrialEvent[]): TrialTotals {
  const ran = events.filter((e) => e.new.filter === 'passed' && !e.new.error);
  const oldRuns = events.filter((e) => e.old.answer !== undefined);
  const rate = (part: number, whole: number) => (whole ? Math.round((part / whole) * 1000) / 1000 : 0);
  const silent = ran.filter((e) => e.new.silent).length;
  return {
    events: events.length,
    runs: ran.length,
    silent,
    silentRate: { old: rate(oldRuns.filter((e) => e.old.silent).length, oldRuns.length), new: rate(silent, ran.length) },
    tokens: { old: events.reduce((sum, e) => sum + (e.old.tokens ?? 0), 0), new: events.reduce((sum, e) => sum + (e.new.tokens ?? 0), 0) },
    durationMs: { new: events.reduce((sum, e) => sum + (e.new.durationMs ?? 0), 0) },
    filteredOutNow: events.filter((e) => e.change === 'filtered-out-now').length,
    passesNow: events.filter((e) => e.change === 'passes-now').length,
    errors: events.filter((e) => e.change === 'error').length,
  };
}

/** Runs the trial and returns its record (not yet saved). */
export async function runTrial(options: TrialOptions): Promise<TrialRecord> {
  const { loaded, current, candidate, jobs } = options;
  const { configDir } = loaded;
  const opened = await openGateway(loaded, {
    logger: createLogger({ level: 'warn', stream: process.stderr }),
    ...(await distributionOptions()),
    // The real store is only read (before this, by selectTrialEvents): the gateway's own is an empty memory store.
    store: createMemoryStore(),
    routeSource: null,
  });
  const { gateway } = opened;
  // A subscription's secrets are not in config.yaml: they join the redaction as the running gateway's would.
  for (const secret of [...current.secrets, ...candidate.secrets]) if (secret && secret !== INSECURE_NO_AUTH) gateway.redactor.add(secret);
  const interrupt = new AbortController();
  const onSignal = () => interrupt.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  const results: Array<TrialEvent | undefined> = new Array(jobs.length);
  let next = 0;
  let tokens = 0;
  let stopReason: string | undefined;
  const worker = async () => {
    while (next < jobs.length && !stopReason && !interrupt.signal.aborted) {
      const index = next++;
      const job = jobs[index];
      const [before, after] = await Promise.all([filterVerdict(current, job, configDir), filterVerdict(candidate, job, configDir)]);
      const old = oldSide(job, before);
      const side: TrialSide = after.passed ? await trialRun(gateway, candidate, job, interrupt.signal) : { filter: 'filtered', filterReason: after.reason };
      const event: TrialEvent = { deliveryId: job.deliveryId, jobId: job.id, event: job.event, receivedAt: job.receivedAt, change: 'same', old, new: side };
      event.change = changeOf(old, side);
      results[index] = gateway.services.outbound.scrubValue('trial', event);
      tokens += side.tokens ?? 0;
      if (options.maxTokens !== undefined && tokens > options.maxTokens && !stopReason) {
        stopReason = `--max-tokens ${options.maxTokens}: the trial's runs used ${tokens} tokens; the remaining events were not run`;
      }
      options.onEvent?.(results[index]!);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, jobs.length)) }, worker));
  } finally {
    process.removeListener('SIGINT', onSignal);
    await opened.close(0);
  }
  const events = results.filter((e): e is TrialEvent => e !== undefined);
  const notRun = jobs.filter((_, i) => results[i] === undefined).map((job) => job.deliveryId);
  if (!stopReason && interrupt.signal.aborted) stopReason = 'interrupted (Ctrl-C)';
  return {
    id: newTrialId(),
    route: candidate.name,
    createdAt: new Date().toISOString(),
    change: options.change,
    selection: options.selection,
    ...(stopReason ? { stopped: { reason: stopReason, notRun } } : {}),
    events,
    totals: totalsOf(events),
  };
}
