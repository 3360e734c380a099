// A virtual clock for the scheduler's tests: time moves only when a test says so, and the timers due on the way
// fire in order, each tick's store step settled before time moves on.
import type { ScheduleClock } from '../src/schedules/scheduler';

interface Timer {
  at: number;
  fire: () => void;
}

export class VirtualClock implements ScheduleClock {
  private readonly timers = new Set<Timer>();

  constructor(private ms: number) {}

  static at(iso: string): VirtualClock {
    return new VirtualClock(Date.parse(iso));
  }

  now(): number {
    return this.ms;
  }

  setTimer(fire: () => void, ms: number): () => void {
    const timer = { at: this.ms + ms, fire };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }

  /** Timers waiting (the scheduler keeps one per scheduled route between ticks). */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves to `iso`, firing each timer due on the way; after each, waits until its route armed its next timer. */
  async advanceTo(iso: string): Promise<void> {
    const to = Date.parse(iso);
    for (;;) {
      const due = [...this.timers].filter((t) => t.at <= to).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.ms = Math.max(this.ms, due.at);
      const before = this.timers.size;
      this.timers.delete(due);
      due.fire();
      await until(() => this.timers.size >= before, `the scheduler to arm its next timer after ${new Date(this.ms).toISOString()}`);
    }
    this.ms = Math.max(this.ms, to);
  }
}

export async function until(done: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  // A memory store answers within a few turns of the event loop; a real one within milliseconds.
  for (let turn = 0; !done(); turn++) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => (turn < 50 ? setImmediate(resolve) : setTimeout(resolve, 5)));
  }
}
