// The BlueBubbles source over real HTTP, as a BlueBubbles server posts to the webhook URL it was given: JSON with
// nothing signed, the route's secret in the URL's query. A retry of a message guid queues nothing new.
import { randomUUID } from 'node:crypto';
import { startTestGateway, type TestGateway } from '@hookwise/testing';
import { NEW_MESSAGE_REPLY } from '../fixtures/bluebubbles-server';

const SECRETS = ['bb-url-secret-new-0123456789', 'bb-url-secret-old-0123456789'];
const withGuid = (guid: string) => JSON.stringify({ ...NEW_MESSAGE_REPLY, data: { ...NEW_MESSAGE_REPLY.data, guid } });

describe('bluebubbles: server webhooks over real HTTP', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      config: {
        platforms: {
          webhook: {
            enabled: true,
            extra: { routes: { imessage: { source: 'bluebubbles', secrets: SECRETS, prompt: 'p', deliver: 'log', allow_from: ['*'] } } },
          },
        },
      },
    });
  });
  afterAll(() => gw?.stop());

  // Only Content-Type, as the server's WebhookService sends it.
  const post = async (query: string, body: string) => {
    const res = await fetch(`${gw.url}/webhooks/imessage${query}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('takes a new-message with the secret in the URL (either of a rotation), 202 with its type and guid; a retry is a duplicate', async () => {
    const guid = randomUUID().toUpperCase();
    expect(await post(`?secret=${SECRETS[0]}`, withGuid(guid))).toEqual({
      status: 202,
      body: { status: 'accepted', route: 'imessage', event: 'new-message', delivery_id: guid },
    });
    expect(await post(`?secret=${SECRETS[0]}`, withGuid(guid))).toMatchObject({ status: 200, body: { status: 'duplicate' } });
    expect((await post(`?secret=${SECRETS[1]}`, withGuid(randomUUID()))).status).toBe(202);
  });

  it('answers 401 Invalid signature to another secret and 401 Missing signature to a URL without one, and logs why', async () => {
    expect(await post('?secret=guess', withGuid(randomUUID()))).toEqual({ status: 401, body: { error: 'Invalid signature' } });
    expect(await post('', withGuid(randomUUID()))).toEqual({ status: 401, body: { error: 'Missing signature' } });
    // Failed-authentication lines are aggregated per client: the first refusal wrote its reason.
    await gw.waitForLog(/Invalid signature on route 'imessage' \(bluebubbles: the URL's secret does not match/);
  });

  it('keeps the secret out of the log', () => {
    for (const secret of SECRETS) expect(gw.fullLogText()).not.toContain(secret);
  });
});
