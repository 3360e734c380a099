// Live updates for the dashboard as server-sent events: lifecycle events are gathered for a moment and sent as one
// `changes` message (counts per event name, the jobs concerned), so a busy gateway does not flood a browser. The
// stream listens to the gateway only while a client is connected.
import type { ServerResponse } from 'node:http';
import { LIFECYCLE_EVENTS, type Gateway, type LifecycleEventName } from '@hookwise/gateway';

const BATCH_MS = 300;
const HEARTBEAT_MS = 15_000;
const MAX_JOBS_PER_MESSAGE = 50;

export class ChangeStream {
  private readonly clients = new Set<ServerResponse>();
  private stops: Array<() => void> = [];
  private counts = new Map<LifecycleEventName, number>();
  private jobs = new Set<string>();
  private timer?: NodeJS.Timeout;
  private heartbeat?: NodeJS.Timeout;

  /** Every hosted profile's gateway: a change in any of them refreshes the dashboard. */
  constructor(private readonly gateways: ReadonlyArray<Pick<Gateway, 'on'>>) {}

  get clientCount(): number {
    return this.clients.size;
  }

  attach(res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // Tells EventSource how long to wait before reconnecting after the gateway restarts.
    res.write('retry: 2000\n\n');
    this.clients.add(res);
    res.on('close', () => this.detach(res));
    if (this.clients.size === 1) this.listen();
  }

  close(): void {
    for (const res of [...this.clients]) res.end();
    this.clients.clear();
    this.unlisten();
  }

  private detach(res: ServerResponse): void {
    this.clients.delete(res);
    if (this.clients.size === 0) this.unlisten();
  }

  private listen(): void {
    for (const name of LIFECYCLE_EVENTS) {
      for (const gateway of this.gateways)
        this.stops.push(
          gateway.on(name, (event) => {
            this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
            const jobId = (event as { jobId?: string }).jobId;
            if (jobId !== undefined && this.jobs.size < MAX_JOBS_PER_MESSAGE) this.jobs.add(jobId);
            this.timer ??= setTimeout(() => this.flush(), BATCH_MS);
          }),
        );
    }
    this.heartbeat = setInterval(() => this.write(': keep-alive\n\n'), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private unlisten(): void {
    for (const stop of this.stops.splice(0)) stop();
    if (this.timer) clearTimeout(this.timer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.timer = undefined;
    this.heartbeat = undefined;
    this.counts = new Map();
    this.jobs = new Set();
  }

  private flush(): void {
    this.timer = undefined;
    const message = { events: Object.fromEntries(this.counts), jobs: [...this.jobs] };
    this.counts = new Map();
    this.jobs = new Set();
    this.write(`event: changes\ndata: ${JSON.stringify(message)}\n\n`);
  }

  private write(text: string): void {
    for (const res of this.clients) res.write(text);
  }
}
