// A webhook subscription ends when its client is no longer granted its type: here the subscription route bob's
// `ci-*` granted is removed from webhook_subscriptions.json while events wait in the subscription's outbox behind
// a slow callback. The waiting events are dropped, not posted (they were: the grant was checked only when an
// event was accepted), and the end is logged. Over real HTTP with the official MCP SDK's client, on SQLite.
import { updateSubscriptions } from '@hookwise/gateway';
import { signGeneric } from '@hookwise/testing';
import { BOB, SECRET, WebhooksHarness, bodyOf, sleep, subscribe, waitFor } from './mcp-webhooks-harness';

const h = new WebhooksHarness('hookwise-mcp-grant-');

beforeAll(() => h.setUp());
afterAll(() => h.tearDown());

async function postDeploy(id: string): Promise<void> {
  const body = JSON.stringify({ env: id });
  const answer = await h.gw!.post('ci-deploys', body, { 'x-webhook-signature': signGeneric(SECRET, body), 'x-request-id': id });
  expect(answer.status).toBe(202);
}

it('drops what waits for a callback once the client loses the type, and posts nothing more', async () => {
  const at = new Date().toISOString();
  await updateSubscriptions(h.configDir, (entries) => {
    entries['ci-deploys'] = {
      events: [],
      skills: [],
      secret: SECRET,
      prompt: 'deploy {env}',
      deliver: 'log',
      deliver_extra: {},
      created_at: at,
      updated_at: at,
    } as never;
  });
  const bob = await h.connect(BOB);
  // The route is served once the gateway has read the file again.
  await waitFor('the subscription route', () => h.gw!.gateway.routes.get('ci-deploys') !== undefined, 10_000);
  const sub = await subscribe(bob, { name: 'ci-deploys', arguments: {}, delivery: { mode: 'webhook', url: `${h.base}/slow` }, ttl: 600 });

  for (const id of ['g-1', 'g-2', 'g-3']) await postDeploy(id);
  // The first is being posted (the callback answers after 3 s); the other two wait in the outbox.
  await waitFor('the first post', () => h.deliveriesTo('/slow').length === 1);
  await updateSubscriptions(h.configDir, (entries) => {
    delete entries['ci-deploys'];
  });
  await h.gw!.waitForLog(`MCP subscription ${sub.subscriptionId} of bob ended (expired, unsubscribed, or the client is no longer granted 'ci-deploys')`);
  await sleep(4000);
  expect(h.deliveriesTo('/slow').map((r) => bodyOf(r).eventId)).toEqual(['g-1']);
}, 30_000);
