// The Feishu source over real HTTP, as Feishu's event subscription calls a Request URL: the encrypted url_verification
// (answered {"challenge"}, nothing queued), signed encrypted events (answered 200 {}, the only answer Feishu counts as
// delivered; a retry of an event_id queues nothing new), and refusals with the gateway's 401s.
import { randomUUID } from 'node:crypto';
import { routesConfig, startTestGateway, type TestGateway } from '@hookwise/testing';
import { MESSAGE_RECEIVE, URL_VERIFICATION, VERIFICATION_TOKEN } from '../fixtures/feishu-docs';
import { feishuRequest } from '../feishu-sender';

const KEYS: [string, string] = ['encrypt-key-new-0123456789', 'encrypt-key-old-0123456789'];
const withEventId = (eventId: string) => ({ ...MESSAGE_RECEIVE, header: { ...MESSAGE_RECEIVE.header, event_id: eventId } });

describe('feishu: event subscription requests over real HTTP', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      config: routesConfig({
        feishu: { source: 'feishu', secrets: KEYS, source_options: { verification_token: VERIFICATION_TOKEN }, prompt: 'p', deliver: 'log', allow_from: ['*'] },
      }),
    });
  });
  afterAll(() => gw?.stop());

  const send = async (req: { body: string; headers: Record<string, string> }) => {
    const res = await fetch(`${gw.url}/webhooks/feishu`, { method: 'POST', body: req.body, headers: { 'content-type': 'application/json', ...req.headers } });
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: JSON.parse(await res.text()) as unknown };
  };

  it('answers the encrypted url_verification with {"challenge"} as JSON, and queues nothing', async () => {
    const res = await send(feishuRequest(URL_VERIFICATION, KEYS[0], { signWith: null }));
    expect(res).toEqual({ status: 200, type: expect.stringMatching(/^application\/json/), body: { challenge: 'ajls384kdjx98XX' } });
    expect(gw.logText()).toContain("answered the feishu handshake on route 'feishu'");
  });

  it('takes a signed, encrypted im.message.receive_v1 with 200 {}, with either key of a rotation; its retry queues nothing new', async () => {
    const eventId = randomUUID();
    const first = await send(feishuRequest(withEventId(eventId), KEYS[0]));
    expect(first).toMatchObject({ status: 200, body: {} });
    await gw.waitForLog(new RegExp(eventId));
    const retry = await send(feishuRequest(withEventId(eventId), KEYS[0]));
    expect(retry).toMatchObject({ status: 200, body: {} });
    await gw.waitForLog(/duplicate/);
    expect((await send(feishuRequest(withEventId(randomUUID()), KEYS[1]))).status).toBe(200);
  });

  it("refuses another Encrypt Key, a stale timestamp and another app's token with 401 Invalid signature, and logs why", async () => {
    const wrong = await send(feishuRequest(withEventId(randomUUID()), KEYS[0], { signWith: 'not-the-encrypt-key' }));
    expect(wrong).toMatchObject({ status: 401, body: { error: 'Invalid signature' } });
    // Failed-authentication lines are aggregated per client: some refusal of this suite wrote the line.
    await gw.waitForLog(/Invalid signature on route 'feishu' \(feishu: /);
    const stale = await send(feishuRequest(withEventId(randomUUID()), KEYS[0], { timestamp: Math.floor(Date.now() / 1000) - 4000 }));
    expect(stale).toMatchObject({ status: 401, body: { error: 'Invalid signature' } });
    const other = await send(feishuRequest({ ...MESSAGE_RECEIVE, header: { ...MESSAGE_RECEIVE.header, token: 'another-app' } }, KEYS[0]));
    expect(other).toMatchObject({ status: 401, body: { error: 'Invalid signature' } });
  });

  it('answers 401 Missing signature to an encrypted event without X-Lark-Signature', async () => {
    const res = await send(feishuRequest(withEventId(randomUUID()), KEYS[0], { signWith: null }));
    expect(res).toMatchObject({ status: 401, body: { error: 'Missing signature' } });
  });
});
