// Live updates for the dashboard as server-sent events: lifecycle events are gathered for a moment and sent as one
// `changes` message (counts per event name, the jobs concerned), so a busy gateway does not flood a browser. Each
// client hears only the gateways it selected (`?profile=`: one profile; without it, every profile). The stream
// listens to the gateways only while a client is connected.
import type { ServerResponse } from 'node:http';
import { LIFECYCLE_EVENTS, type Gateway, type LifecycleEventName } from '@hookwise/gateway';

const BATCH_MS = 300;
const HEARTBEAT_MS = 15_000;
const MAX_JOBS_PER_MESSAGE = 50;

type Heard = Pick<Gateway, 'on'>;

/** One connected client: what it hears, and what it has not been sent yet. */
interface Listener {
  res: ServerResponse;
  hears: ReadonlySet<Heard>;
  counts: Map<LifecycleEventName, number>;
  jobs: Set<string>;
  timer?: NodeJS.Timeout;
}

export class ChangeStream {
  private readonly listeners = new Set<Listener>();
  private stops: Array<() => void> = [];
  private heartbeat?: NodeJS.Timeout;

  /** Every hosted profile's gateway: a change in any of them refreshes the dashboards that show it. */
  constructor(private readonly gateways: readonly Heard[]) {}

  get clientCount(): number {
    return this.listeners.size;
  }

  /** Streams to `res` the changes of `hears` (default: every gateway). */
  attach(res: ServerResponse, hears: readonly Heard[] = this.gateways): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // Tells EventSource how long to wait before reconnecting after the gateway restarts.
    res.write('retry: 2000\n\n');
    const listener: Listener = { res, hears: new Set(hears), counts: new Map(), jobs: new Set() };
    this.listeners.add(listener);
    res.on('close', () => this.detach(listener));
    if (this.listeners.size === 1) this.listen();
  }

  close(): void {
    for (const listener of [...this.listeners]) {
      if (listener.timer) clearTimeout(listener.timer);
      listener.res.end();
    }
    this.listeners.clear();
    this.unlisten();
  }

  private detach(listener: Listener): void {
    if (listener.timer) clearTimeout(listener.timer);
    this.listeners.delete(listener);
    if (this.listeners.size === 0) this.unlisten();
  }

  private listen(): void {
    for (const name of LIFECYCLE_EVENTS) for (const gateway of this.gateways) this.stops.push(gateway.on(name, (event) => this.heard(gateway, name, event)));
    this.heartbeat = setInterval(() => {
      for (const { res } of this.listeners) res.write(': keep-alive\n\n');
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private heard(gateway: Heard, name: LifecycleEventName, event: unknown): void {
    const jobId = (event as { jobId?: string }).jobId;
    for (const listener of this.listeners) {
      if (!listener.hears.has(gateway)) continue;
      listener.counts.set(name, (listener.counts.get(name) ?? 0) + 1);
      if (jobId !== undefined && listener.jobs.size < MAX_JOBS_PER_MESSAGE) listener.jobs.add(jobId);
      listener.timer ??= setTimeout(() => this.flush(listener), BATCH_MS);
    }
  }

  private unlisten(): void {
    for (const stop of this.stops.splice(0)) stop();
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private flush(listener: Listener): void {
    listener.timer = undefined;
    const message = { events: Object.fromEntries(listener.counts), jobs: [...listener.jobs] };
    listener.counts = new Map();
    listener.jobs = new Set();
    listener.res.write(`event: changes\ndata: ${JSON.stringify(message)}\n\n`);
  }
}
