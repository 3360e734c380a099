// Filter expressions (JSONata) evaluated off the event loop. JSONata checks its own timeout only between
// evaluation steps, and `$sort`, order-by and `$distinct` are single steps: one large signed payload could freeze
// the gateway for seconds or exhaust its heap. Here every evaluation runs in a worker thread with a
// limited heap, under a hard deadline per event; a worker that misses it is terminated and replaced. At most
// EXPRESSION_WORKERS evaluations run at once and EXPRESSION_QUEUE wait, so a flood of slow payloads costs bounded
// CPU and memory and is answered at once beyond that. Workers start on the first expression, never for routes
// without one, and stop after a minute idle.
import { Worker } from 'node:worker_threads';
import { EXPRESSION_WORKER_SOURCE } from './expression-worker-source';

/** Wall time one event's expressions may take, waiting for a worker included. */
export const EXPRESSION_DEADLINE_MS = 1000;
/** Evaluations running at once (each in its own worker thread). */
export const EXPRESSION_WORKERS = 2;
/** Events waiting for a worker; more are answered "not passed" at once. */
export const EXPRESSION_QUEUE = 16;
/** A worker's old-generation heap limit; a larger need ends the evaluation as "ran out of memory". */
export const EXPRESSION_HEAP_MB = 64;
const IDLE_MS = 60_000;

/** What an expression gave, summarised in the worker (never the value of a list or object). */
export type ExpressionResult =
  { kind: 'value'; value: string | number | boolean | null } | { kind: 'list'; length: number } | { kind: 'object' } | { kind: 'nothing' };

/** An evaluation's outcome: a result, or the error JSONata threw (code, message, position). */
export type ExpressionOutcome = { result: ExpressionResult } | { error: { code?: string; message: string; position?: number } };

/** The evaluation did not run to its end: deadline missed, heap exhausted, or too many waiting. */
export class ExpressionUnavailable extends Error {}

/** Options given to jsonata() in the worker (JSONata's own guardrails, kept for step-by-step expressions). */
export interface ExpressionBounds {
  timeout: number;
  stack: number;
  sequence: number;
}

let workersStarted = 0;
/** How many expression workers this process has started (tests check routes without expressions start none). */
export function expressionWorkersStarted(): number {
  return workersStarted;
}

interface Pending {
  id: number;
  resolve(outcome: ExpressionOutcome): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** One worker thread; `dead` once it was terminated or failed (then it is dropped, not reused). */
class Evaluator {
  private readonly worker: Worker;
  private pending: Pending | undefined;
  private nextId = 0;
  dead = false;
  idleTimer: NodeJS.Timeout | undefined;

  constructor(bounds: ExpressionBounds, preview: number, heapMb: number) {
    this.worker = new Worker(EXPRESSION_WORKER_SOURCE, {
      eval: true,
      workerData: { jsonataPath: require.resolve('jsonata'), bounds, preview },
      resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    });
    workersStarted += 1;
    this.worker.on('message', (message: { id: number } & ExpressionOutcome) => {
      const pending = this.pending;
      if (!pending || pending.id !== message.id) return;
      this.pending = undefined;
      clearTimeout(pending.timer);
      pending.resolve('error' in message ? { error: message.error } : { result: message.result });
    });
    this.worker.on('error', (err: Error & { code?: string }) => {
      this.fail(
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `ran out of memory (the limit is ${heapMb} MB); simplify the expression or use a declarative test`
          : `stopped: ${err.message}`,
      );
    });
    this.worker.on('exit', () => this.fail('stopped before it finished'));
    // A worker never keeps the gateway's process alive (after the listeners: adding one refs the port again).
    this.worker.unref();
  }

  /** Evaluates one expression; the payload goes along only with a job's first expression. */
  run(message: { job: number; text: string; payload?: string }, timeoutMs: number, deadlineMs: number): Promise<ExpressionOutcome> {
    return new Promise((resolve, reject) => {
      const id = ++this.nextId;
      const timer = setTimeout(() => {
        this.fail(`did not finish within ${deadlineMs} ms and was stopped; simplify the expression or use a declarative test`);
      }, timeoutMs);
      this.pending = { id, resolve, reject, timer };
      this.worker.postMessage({ id, ...message });
    });
  }

  /** Ends the pending evaluation with `reason` and the worker with it. */
  fail(reason: string): void {
    this.dead = true;
    const pending = this.pending;
    this.pending = undefined;
    if (pending) {
      clearTimeout(pending.timer);
      pending.reject(new ExpressionUnavailable(reason));
    }
    this.stop();
  }

  stop(): void {
    this.dead = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    void this.worker.terminate().catch(() => undefined);
  }
}

interface Waiter {
  resolve(evaluator: Evaluator): void;
  timer: NodeJS.Timeout;
}

export interface ExpressionPoolOptions {
  bounds: ExpressionBounds;
  /** How much of a string result comes back (for the log line). */
  preview: number;
  deadlineMs?: number;
  workers?: number;
  queue?: number;
  heapMb?: number;
}

export class ExpressionPool {
  private readonly idle: Evaluator[] = [];
  private readonly waiting: Waiter[] = [];
  private live = 0;
  private jobs = 0;
  private readonly deadlineMs: number;
  private readonly workers: number;
  private readonly queue: number;
  private readonly heapMb: number;

  constructor(private readonly options: ExpressionPoolOptions) {
    this.deadlineMs = options.deadlineMs ?? EXPRESSION_DEADLINE_MS;
    this.workers = options.workers ?? EXPRESSION_WORKERS;
    this.queue = options.queue ?? EXPRESSION_QUEUE;
    this.heapMb = options.heapMb ?? EXPRESSION_HEAP_MB;
  }

  /**
   * Runs `work` with one worker to itself, under one deadline for the whole event: `evaluate` sends the payload
   * (JSON) with the first expression only. Throws ExpressionUnavailable when no worker is free in time.
   */
  async withJob<T>(payloadJson: string, work: (evaluate: (text: string) => Promise<ExpressionOutcome>) => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.deadlineMs;
    const evaluator = await this.acquire(deadline);
    // The body was parsed in this same turn of the event loop; copying it to the worker waits for the next, so
    // that /health and other requests get a turn between the two.
    await new Promise((resolve) => setImmediate(resolve));
    const job = ++this.jobs;
    let payload: string | undefined = payloadJson;
    try {
      return await work((text) => {
        const remaining = deadline - Date.now();
        if (remaining <= 0) return Promise.reject(new ExpressionUnavailable(`did not finish within ${this.deadlineMs} ms`));
        const sent = evaluator.run({ job, text, payload }, remaining, this.deadlineMs);
        payload = undefined;
        return sent;
      });
    } finally {
      this.release(evaluator);
    }
  }

  private acquire(deadline: number): Promise<Evaluator> {
    for (let ready = this.idle.pop(); ready; ready = this.idle.pop()) {
      if (ready.idleTimer) clearTimeout(ready.idleTimer);
      if (!ready.dead) return Promise.resolve(ready);
      // It stopped while idle (it should not): drop it.
      this.live -= 1;
    }
    if (this.live < this.workers) return Promise.resolve(this.spawn());
    if (this.waiting.length >= this.queue)
      return Promise.reject(
        new ExpressionUnavailable(`was not evaluated: ${this.workers} evaluations are running and ${this.waiting.length} waiting (the gateway is busy)`),
      );
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(
          () => {
            this.waiting.splice(this.waiting.indexOf(waiter), 1);
            reject(new ExpressionUnavailable(`was not evaluated: no evaluator was free within ${this.deadlineMs} ms (the gateway is busy)`));
          },
          Math.max(0, deadline - Date.now()),
        ),
      };
      this.waiting.push(waiter);
    });
  }

  private spawn(): Evaluator {
    this.live += 1;
    return new Evaluator(this.options.bounds, this.options.preview, this.heapMb);
  }

  private release(evaluator: Evaluator): void {
    let next: Evaluator | undefined = evaluator;
    if (evaluator.dead) {
      this.live -= 1;
      next = this.waiting.length ? this.spawn() : undefined;
    }
    if (!next) return;
    const waiter = this.waiting.shift();
    if (waiter) {
      clearTimeout(waiter.timer);
      waiter.resolve(next);
      return;
    }
    const idle = next;
    idle.idleTimer = setTimeout(() => {
      this.idle.splice(this.idle.indexOf(idle), 1);
      this.live -= 1;
      idle.stop();
    }, IDLE_MS);
    idle.idleTimer.unref();
    this.idle.push(idle);
  }
}
