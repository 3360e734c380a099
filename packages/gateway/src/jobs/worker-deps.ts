// What the worker pool is given by the gateway that runs it: the job queue, routes, plugin look-ups, limits and
// the listeners of what happens. Each step of a job takes the part of it that it uses.
import type { Logger } from 'winston';
import type { AgentRunner, Deliverer, JobQueue, RouteBudget, Skill, WindowCounters } from '@hookwise/core';
import type { Lifecycle } from '../observe/lifecycle';
import type { OutboundScrubber } from '../observe/outbound-scrub';
import type { StoreStatus } from '../observe/store-status';
import type { Route, RouteTable } from '../routes/routes';
import type { RetryPolicy } from '../config/retry-policy';
import type { AgentSandboxes } from './agent-sandbox';
import type { PreviousEvents } from './previous-event';
import type { JobHook } from './job-hooks';

export interface WorkerDeps {
  jobs: JobQueue;
  routes: RouteTable;
  agentFor(route: Route): AgentRunner | Promise<AgentRunner>;
  /** The deliverer of a destination's `to` (an id or an alias); each destination of a fan-out is looked up so. */
  delivererById(id: string): Deliverer | Promise<Deliverer>;
  skillsFor(route: Route): Skill[];
  retry: RetryPolicy;
  concurrency: number;
  agentTimeoutMs: number;
  logger: Logger;
  /** How long a lease lasts; renewed at a third of it while the job runs. */
  leaseMs?: number;
  /** How often idle workers look for due or orphaned jobs even without a wake-up. */
  pollMs?: number;
  random?: () => number;
  /** Told about agent runs, deliveries, retries and dead letters; only events someone listens to are built. */
  lifecycle?: Lifecycle;
  /** The agent runner a route uses (its own or the global one), for lifecycle events. */
  runnerOf?(route: Route): string;
  /** Told whether leasing worked, for /health (a failing store is reported without a query of its own). */
  storeStatus?: StoreStatus;
  /** Where runs and tokens are counted for budgets (`Store.counters`); absent: in this process's memory. */
  counters?: WindowCounters;
  /** `agent.budget`: a limit on every route's runs together. */
  budget?: RouteBudget;
  /** `agent.silent_marker` (default `[SILENT]`); a route's `silent_marker` wins. */
  silentMarker?: string;
  /** Opens each agent run's sandbox (`agent.sandbox`); absent: runners start their processes as they like. */
  sandboxes?: AgentSandboxes;
  /**
   * The gateway's one exit for text (observe/outbound-scrub.ts): every known secret out of answers before they are
   * stored and of failure text before it is logged, stored or told; absent: as written.
   */
  outbound?: OutboundScrubber;
  /** Which event of a key was answered last, for `{__previous__}` (previous-event.ts); absent: templates get none. */
  previous?: PreviousEvents;
  /** What the features add to each job's steps (job-hooks.ts), in the order they are asked. */
  hooks?: readonly JobHook[];
}
