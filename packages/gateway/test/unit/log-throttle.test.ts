import { LogThrottle } from '../../src/ingest/log-throttle';

describe('LogThrottle', () => {
  it('writes the first line of a window and counts the rest onto the next window', () => {
    let now = 1000;
    const throttle = new LogThrottle(60_000, () => now);
    expect(throttle.take()).toBe(0);
    expect(throttle.take()).toBeUndefined();
    now += 59_999;
    expect(throttle.take()).toBeUndefined();
    now += 1;
    expect(throttle.take()).toBe(2);
    now += 60_000;
    expect(throttle.take()).toBe(0);
  });
});
