// How each webhook subscription's deliveries went since this gateway started, counted from the
// `mcp_webhook_delivery` lifecycle events, for the admin API and the dashboard (the store keeps no such history).
import type { Lifecycle, McpWebhookDeliveryEvent } from '../observe/lifecycle';

export interface DeliveryCounts {
  /** Messages the callback answered 2xx. */
  delivered: number;
  /** Messages given up on (attempts used up, or refused for good). */
  failed: number;
  /** Failed attempts that were retried. */
  retried: number;
  /** The last attempt's time (ISO 8601) and, when it failed, its error. */
  lastAt?: string;
  lastError?: string;
}

/** Subscriptions come and go (each expires); past this many, the one counted least recently is forgotten. */
const MAX_TALLIED = 1000;

export class DeliveryTally {
  private readonly counts = new Map<string, DeliveryCounts>();
  private stop?: () => void;

  constructor(private readonly now: () => number) {}

  /** Starts counting; the listener only exists while someone may look (MCP Events configured). */
  listen(lifecycle: Lifecycle): void {
    this.stop ??= lifecycle.on('mcp_webhook_delivery', (event) => this.count(event));
  }

  close(): void {
    this.stop?.();
    this.stop = undefined;
  }

  of(subscription: string): DeliveryCounts {
    return { ...(this.counts.get(subscription) ?? { delivered: 0, failed: 0, retried: 0 }) };
  }

  private count(event: McpWebhookDeliveryEvent): void {
    const entry = this.counts.get(event.subscription) ?? { delivered: 0, failed: 0, retried: 0 };
    if (event.outcome === 'delivered') entry.delivered += 1;
    else if (event.outcome === 'failed') entry.failed += 1;
    else entry.retried += 1;
    entry.lastAt = new Date(this.now()).toISOString();
    entry.lastError = event.outcome === 'delivered' ? undefined : event.error;
    // Re-inserted so that the map's order is the order of last use.
    this.counts.delete(event.subscription);
    this.counts.set(event.subscription, entry);
    if (this.counts.size > MAX_TALLIED) this.counts.delete(this.counts.keys().next().value as string);
  }
}
