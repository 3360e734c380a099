// sleep: the kit's one abortable wait, used between retries by the platform deliverers and the OpenAI runner.
import { sleep } from '@hookwise/kit';

describe('sleep', () => {
  it('resolves after the time has passed', async () => {
    const started = Date.now();
    await sleep(30, new AbortController().signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('rejects with the abort reason as soon as the signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const waiting = sleep(60_000, controller.signal);
    setTimeout(() => controller.abort(new Error('shutting down')), 10);
    await expect(waiting).rejects.toThrow('shutting down');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('rejects at once when the signal has already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(sleep(60_000, controller.signal)).rejects.toThrow('gone');
  });
});
