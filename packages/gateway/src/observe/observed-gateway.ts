// What the observers (metrics, traces, the activity journal) read of a gateway: its lifecycle and a few facts,
// never the gateway itself, so they sit below it and a host can observe anything that offers this view.
import type { Store } from '@hookwise/core';
import type { Logger } from 'winston';
import type { HookwiseConfig } from '../config/schema';
import type { Lifecycle, LifecycleEventName, LifecycleListener } from './lifecycle';
import type { Redactor } from './logger';

export interface ObservedGateway {
  readonly config: HookwiseConfig;
  /** The profile the gateway serves (`default` for the config dir's own); absent for hosts that have none. */
  readonly profile?: string;
  readonly logger: Logger;
  readonly redactor: Redactor;
  readonly lifecycle: Lifecycle;
  readonly store: Pick<Store, 'jobs'>;
  /** How many jobs this gateway runs now. */
  readonly workers: { readonly inFlight: number };
  /** Listens to a lifecycle event; returns the function that stops listening. */
  on<K extends LifecycleEventName>(name: K, listener: LifecycleListener<K>): () => void;
  /** When the approval of a held job was asked, for how long approvals wait; undefined when none was. */
  approvalRequestedAt(jobId: string): Promise<number | undefined>;
}
