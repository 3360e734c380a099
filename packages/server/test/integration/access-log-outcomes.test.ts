// Issue 33: the access log reads what the pipeline decided from the webhook handler (no lifecycle events are built
// for it). Each outcome keeps its fields: accepted, duplicate and ignored with route, event and delivery id;
// refusals as rejected:<reason> with the route asked for; requests the pipeline never saw by status class.
import type { TestGateway } from '@hookwise/testing';
import { send, startObserved } from './observed-gateway';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

type Line = Record<string, unknown>;
const accessLines = (gw: TestGateway): Line[] => gw.logs.filter((l) => l.access === true) as Line[];

async function lineFor(gw: TestGateway, status: number, match: (l: Line) => boolean): Promise<Line> {
  const until = Date.now() + 5000;
  for (;;) {
    const found = accessLines(gw).find((l) => l.status === status && match(l));
    if (found) return found;
    if (Date.now() > until) throw new Error(`no access line with status ${status}; lines: ${JSON.stringify(accessLines(gw))}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

it('writes each outcome with the fields it wrote when they came from lifecycle events', async () => {
  gw = await startObserved();
  const fields = ({ method, path, status, outcome, route, event, delivery_id }: Line) => ({ method, path, status, outcome, route, event, delivery_id });

  expect((await send(gw, 'ci', { event_type: 'push', ref: 'main' }, { 'x-request-id': 'acc-1' })).status).toBe(202);
  expect(fields(await lineFor(gw, 202, (l) => l.delivery_id === 'acc-1'))).toEqual({
    method: 'POST',
    path: '/webhooks/ci',
    status: 202,
    outcome: 'accepted',
    route: 'ci',
    event: 'push',
    delivery_id: 'acc-1',
  });

  expect((await send(gw, 'ci', { event_type: 'push', ref: 'main' }, { 'x-request-id': 'acc-1' })).status).toBe(200);
  expect(fields(await lineFor(gw, 200, (l) => l.outcome === 'duplicate'))).toMatchObject({
    outcome: 'duplicate',
    route: 'ci',
    event: 'push',
    delivery_id: 'acc-1',
  });

  expect((await send(gw, 'ci', { event_type: 'tag', ref: 'v1' }, { 'x-request-id': 'ign-1' })).status).toBe(200);
  expect(fields(await lineFor(gw, 200, (l) => l.outcome === 'ignored'))).toMatchObject({ outcome: 'ignored', route: 'ci', event: 'tag', delivery_id: 'ign-1' });

  const unsigned = await gw.post('ci', JSON.stringify({ event_type: 'push' }), { 'x-webhook-signature': 'sha256=' + '0'.repeat(64) });
  expect(unsigned.status).toBe(401);
  const refused = await lineFor(gw, 401, () => true);
  expect(fields(refused)).toMatchObject({ outcome: 'rejected:invalid_signature', route: 'ci' });
  expect(refused.event).toBeUndefined();
  expect(refused.delivery_id).toBeUndefined();

  expect((await gw.post('nope', '{}', {})).status).toBe(404);
  expect(fields(await lineFor(gw, 404, () => true))).toMatchObject({ outcome: 'rejected:unknown_route', route: 'nope' });

  // Not the pipeline's: a path that does not decode is answered by the listener in front of it.
  expect((await fetch(`${gw.url}/webhooks/%E0%A4%A`, { method: 'POST', body: '{}' })).status).toBe(400);
  expect(fields(await lineFor(gw, 400, () => true))).toMatchObject({ outcome: 'client_error' });

  // Every line carries the duration and the client.
  for (const line of accessLines(gw)) {
    expect(typeof line.duration_ms).toBe('number');
    expect(line.client).toBe('127.0.0.1');
  }
});
