// The fan-out of an answer looks each destination's deliverer up by its id (the `to` of the route's entry), never
// through a route made up for it; a destination that has the answer is not looked up (nor sent to) again.
import { Writable } from 'node:stream';
import type { Deliverer, DeliveryMessage } from '@hookwise/core';
import { HookwiseError, definePlugin } from '@hookwise/core';
import { validateConfigObject } from '../../src/config/load';
import { Gateway } from '../../src/gateway';
import { deliverToEach } from '../../src/jobs/fan-out';
import { routeFromJob } from '../../src/routes/job-route';
import { createLogger } from '../../src/observe/logger';
import { createMemoryStore } from '../../src/stores/memory';

const quiet = () =>
  createLogger({
    stream: new Writable({
      write(_chunk, _e, done) {
        done();
      },
    }),
    format: 'json',
    level: 'error',
  });

describe('fan-out delivery', () => {
  it('looks up each destination by its id, and on the retry only the one that failed', async () => {
    const { jobs } = createMemoryStore();
    const job = await jobs.enqueue({ route: 'ci', event: 'push', deliveryId: 'd-1', payload: { n: 1 }, receivedAt: Date.now() });
    const route = routeFromJob('ci', {
      origin: 'static',
      skills: [],
      deliver: 'chat,mail,chat#2',
      deliverExtra: {},
      destinations: [
        { to: 'chat', extra: {} },
        { to: 'mail', extra: {} },
        { to: 'chat', name: 'chat#2', extra: { room: 'second' } },
      ],
    });
    const lookedUp: unknown[] = [];
    const sent: string[] = [];
    let mailDown = true;
    const deliverer = (id: string): Deliverer => ({
      async deliver(msg: DeliveryMessage) {
        if (id === 'mail' && mailDown) throw new HookwiseError('HW_E_DELIVERY', 'mail server down', { retryable: true });
        sent.push(`${id}->${msg.destination}`);
        return { target: id };
      },
    });
    const deps = {
      jobs,
      logger: quiet(),
      retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 },
      isRunning: () => true,
      delivererById: (id: string) => {
        lookedUp.push(id);
        return deliverer(id);
      },
    };

    const first = await deliverToEach(deps, route, job, 'the answer', 1, new AbortController().signal);
    expect(lookedUp).toEqual(['chat', 'mail', 'chat']);
    expect(sent).toEqual(['chat->chat', 'chat->chat#2']);
    expect(first?.failure).toMatchObject({ destination: 'mail', attempt: 1 });

    lookedUp.length = 0;
    mailDown = false;
    const stored = await jobs.get(job.id);
    const second = await deliverToEach(deps, route, stored!, 'the answer', 2, new AbortController().signal);
    expect(lookedUp).toEqual(['mail']);
    expect(sent).toEqual(['chat->chat', 'chat->chat#2', 'mail->mail']);
    expect(second).toEqual({ receipt: { destinations: { chat: { target: 'chat' }, mail: { target: 'mail' }, 'chat#2': { target: 'chat' } } } });
  });

  it('through the gateway: an alias and the real id of one deliverer are one instance, created once', async () => {
    const seen: DeliveryMessage[] = [];
    let created = 0;
    const plugin = definePlugin({
      meta: { name: 'test-recorder', version: '1.0.0', api: 2 },
      contributes: [
        {
          kind: 'deliverer',
          id: 'recorder',
          aliases: ['platform_97'],
          create: (): Deliverer => {
            created += 1;
            return {
              async deliver(msg) {
                seen.push(msg);
                return { target: 'memory' };
              },
            };
          },
        },
      ],
    });
    const config = validateConfigObject({
      platforms: {
        webhook: {
          enabled: true,
          extra: {
            host: '127.0.0.1',
            routes: { r: { secret: 'INSECURE_NO_AUTH', prompt: 'hi', deliver: ['platform_97', { to: 'recorder', extra: { chat: 'two' } }] } },
          },
        },
      },
    });
    const gw = new Gateway({ config, configDir: '/tmp', plugins: [{ plugin, source: 'test', options: {} }], logger: quiet(), pollMs: 20 });
    await gw.start();
    try {
      expect(await gw.delivererById('platform_97')).toBe(await gw.delivererById('recorder'));
      const res = await gw.pipeline.handle({ route: 'r', headers: { 'content-type': 'application/json' }, body: Buffer.from('{}') });
      expect(res.status).toBe(202);
      const deliveryId = String((res.body as Record<string, unknown>).delivery_id);
      for (let i = 0; i < 250 && (await gw.store.jobs.findByDeliveryId(deliveryId))?.status !== 'done'; i++) await new Promise((r) => setTimeout(r, 20));
      expect((await gw.store.jobs.findByDeliveryId(deliveryId))?.status).toBe('done');
      expect(seen.map((msg) => [msg.destination, msg.extra])).toEqual([
        ['platform_97', {}],
        ['recorder', { chat: 'two' }],
      ]);
      expect(created).toBe(1);
    } finally {
      await gw.stop();
    }
  });
});
