// Graceful shutdown: running jobs get shutdown_timeout_seconds to finish, then are handed back to the queue.
import { startTestGateway } from '@hookwise/testing';

describe('graceful shutdown', () => {
  it('waits shutdown_timeout_seconds for a running job, then leaves it pending for the next start', async () => {
    const gw = await startTestGateway({
      config: {
        platforms: { webhook: { enabled: true, extra: { shutdown_timeout_seconds: 0.5, routes: { slow: { secret: 'INSECURE_NO_AUTH' } } } } },
        agent: { runner: 'command', command: [process.execPath, '-e', 'setTimeout(() => {}, 30000)'] },
        store: { backend: 'memory' },
      },
    });
    const res = await gw.post('slow', '{"n":1}', { 'x-request-id': 'slow-1' });
    expect(res.status).toBe(202);
    const running = async () => (await gw.gateway.store.jobs.findByDeliveryId('slow-1'))?.status;
    for (let i = 0; i < 200 && (await running()) !== 'running'; i += 1) await new Promise((r) => setTimeout(r, 25));
    expect(await running()).toBe('running');

    const { unfinished } = await gw.close();
    expect(unfinished).toHaveLength(1);
    const job = await gw.gateway.store.jobs.findByDeliveryId('slow-1');
    expect(job).toMatchObject({ status: 'pending', attempts: 0 });
    await gw.stop();
  });
});
