// The gateway's one cache of plugin instances (deliverers, agent runners, sources): one instance per key, shared
// while it is being created; a creation that failed is forgotten, so that the next use tries again.
import { InstanceCache } from '../../src/plugins/instance-cache';

/** A creation the test finishes by hand, counting how often it was started. */
function controlledCreation() {
  let finish!: (value: { n: number }) => void;
  let fail!: (err: Error) => void;
  let started = 0;
  const create = () => {
    started += 1;
    return new Promise<{ n: number }>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  };
  return { create, finish: (n: number) => finish({ n }), fail: (message: string) => fail(new Error(message)), started: () => started };
}

describe('InstanceCache', () => {
  it('creates one instance per key, shared by the calls made while it is being created and after', async () => {
    const cache = new InstanceCache<{ n: number }>();
    const creation = controlledCreation();
    const first = cache.get('slack', creation.create);
    const during = cache.get('slack', creation.create);
    creation.finish(1);
    const after = cache.get('slack', creation.create);
    expect(creation.started()).toBe(1);
    const [a, b, c] = await Promise.all([first, during, after]);
    expect(a).toEqual({ n: 1 });
    expect(b).toBe(a);
    expect(c).toBe(a);
  });

  it('keeps one instance for each key', async () => {
    const cache = new InstanceCache<{ n: number }>();
    let made = 0;
    const create = async () => ({ n: ++made });
    const slack = await cache.get('slack', create);
    const email = await cache.get('email', create);
    expect(slack).toEqual({ n: 1 });
    expect(email).toEqual({ n: 2 });
    expect(await cache.get('slack', create)).toBe(slack);
    expect(await Promise.all(cache.all())).toEqual([slack, email]);
  });

  it('does not keep a failed creation: the calls during it share the failure, the next call creates again', async () => {
    const cache = new InstanceCache<{ n: number }>();
    const creation = controlledCreation();
    const first = cache.get('telegram', creation.create);
    const during = cache.get('telegram', creation.create);
    creation.fail('platforms.telegram: must have required property token');
    await expect(first).rejects.toThrow('must have required property token');
    await expect(during).rejects.toThrow('must have required property token');
    expect(cache.all()).toEqual([]);

    const retried = cache.get('telegram', creation.create);
    expect(creation.started()).toBe(2);
    creation.finish(2);
    expect(await retried).toEqual({ n: 2 });
    expect(await cache.get('telegram', creation.create)).toBe(await retried);
    expect(creation.started()).toBe(2);
  });
});
