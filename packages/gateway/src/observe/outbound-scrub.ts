// The one exit for text: everything that leaves the gateway carrying text an agent or a payload influenced goes
// through one OutboundScrubber, named by its exit, before it leaves: answers, deliver_only answers, action
// inputs, trials, failure text (log lines, stored job errors, lifecycle events), lifecycle webhook bodies, MCP
// Events occurrences, and what plugins scrub with their context's `scrub` (tool output on its way to a model, an
// agent's stderr lines).
// It knows every registered secret (the gateway's live redactor: routes, subscriptions as they are read, platform
// tokens, the admin token) and the values of the gateway's credential-named variables (its environment with
// <config_dir>/.env), in every form core's ThoroughScrubber knows. Only the job path and the exits above call it:
// the request path never does.
import { REDACTED, ThoroughScrubber, credentialValues, type SecretScrubber } from '@hookwise/core';

/**
 * Every exit, by name. A new outbound sink gets a name here and a case in
 * packages/cli/test/integration/outbound-exits.test.ts, whose guard compares this list with the names the
 * sources pass to `scrub`/`scrubValue` and with its own cases.
 */
export const OUTBOUND_EXITS = [
  /** An agent run's answer, before it is stored and delivered (jobs/agent-step.ts). */
  'answer',
  /** A deliver_only route's rendered answer, before it is stored and delivered (jobs/agent-step.ts). */
  'deliver-only',
  /** An action's input (github.comment's body, message's text, ...), before the action runs (actions/run-actions.ts). */
  'action-input',
  /** A trial's events, before they are printed and stored (cli trial-run.ts). */
  'trial',
  /** Why a step or a run failed: its log line, the stored job error, the lifecycle events (jobs/retries.ts, jobs/agent-step.ts). */
  'failure',
  /** A lifecycle webhook's body, before it is kept in the outbox and posted (observe/lifecycle-webhooks.ts). */
  'lifecycle-webhook',
  /** An MCP Events occurrence's data (every string, keys too) and event id, before a poll, a stream or a webhook delivery (mcp-events/event-data.ts). */
  'mcp-event',
  /** PluginContext.scrub: a tool's output on its way to a model, an agent's stderr lines on their way to the log. */
  'plugin-text',
] as const;

export type OutboundExit = (typeof OUTBOUND_EXITS)[number];

/** A scrubbed text and how many secrets were taken out of it (occurrences, any encoding). */
export interface ScrubbedText {
  text: string;
  scrubbed: number;
}

function countOf(text: string, marker: string): number {
  return text.split(marker).length - 1;
}

export class OutboundScrubber {
  private readonly scrubber: ThoroughScrubber;
  /** Texts that passed each exit so far (for tests and diagnostics). */
  readonly passed: Record<OutboundExit, number> = Object.fromEntries(OUTBOUND_EXITS.map((exit) => [exit, 0])) as Record<OutboundExit, number>;

  constructor(
    registered: SecretScrubber,
    env: NodeJS.ProcessEnv = process.env,
    /** Further variable names whose values are secrets whatever their name (a runner's `api_key_env`). */
    names: readonly string[] = [],
  ) {
    this.scrubber = new ThoroughScrubber(credentialValues(env, names), [registered]);
  }

  scrub(exit: OutboundExit, text: string): string {
    this.passed[exit] += 1;
    return this.scrubber.scrub(text);
  }

  /** `scrub` over every string inside a value (an action's input, a trial event): arrays and plain objects copied. */
  scrubValue<T>(exit: OutboundExit, value: T): T {
    this.passed[exit] += 1;
    return this.scrubber.scrubValue(value) as T;
  }

  /** `scrub`, counting the secrets it took out (a marker the text held already is not counted). */
  scrubCounted(exit: OutboundExit, text: string): ScrubbedText {
    const out = this.scrub(exit, text);
    return { text: out, scrubbed: Math.max(0, countOf(out, REDACTED) - countOf(text, REDACTED)) };
  }
}
