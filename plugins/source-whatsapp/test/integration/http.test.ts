// The WhatsApp source over real HTTP: the conformance tests of @hookwise/testing with bodies signed as Meta signs
// them (X-Hub-Signature-256 with the App Secret), and Meta's GET verification of the callback URL, which reaches the
// source only on a route that pins it (any other route still answers a GET 405).
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeSourceOverHttp, startTestGateway, type TestGateway } from '@hookwise/testing';

const MESSAGE = readFileSync(join(__dirname, '..', 'fixtures', 'text-message.json'), 'utf8').trim();
const WAMID = 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=';
const SECRETS: [string, string] = ['app-secret-new-0123456789abcdef', 'app-secret-old-0123456789abcdef'];
const VERIFY_TOKEN = 'verify-token-0123456789';

/** Each kit delivery id as a wamid of its own: the same id (Meta's retry) gives the same bytes. */
const wamidFor = (deliveryId: string) => `wamid.${createHash('sha256').update(deliveryId).digest('base64url').slice(0, 40)}`;

describeSourceOverHttp('whatsapp', {
  source: 'whatsapp',
  // A chat source's route names who may start a run (allow_from); anyone, for the conformance cases.
  route: { allow_from: ['*'] },
  secrets: SECRETS,
  sourceOptions: { verify_token: VERIFY_TOKEN },
  body: MESSAGE,
  event: 'messages',
  bodyFor: ({ deliveryId }) => MESSAGE.replace(WAMID, wamidFor(deliveryId)),
  expectedDeliveryId: wamidFor,
  sign: ({ body, key }) => ({
    'X-Hub-Signature-256': `sha256=${createHmac('sha256', key === 'wrong' ? 'not-the-app-secret' : SECRETS[key])
      .update(body)
      .digest('hex')}`,
  }),
  // Another sender's style: Slack's signature headers, which this route must not take.
  otherStyle: () => ({ 'X-Slack-Signature': `v0=${'0'.repeat(64)}`, 'X-Slack-Request-Timestamp': String(Math.floor(Date.now() / 1000)) }),
});

describe("whatsapp: Meta's GET verification of the callback URL, over real HTTP", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      config: {
        platforms: {
          webhook: {
            enabled: true,
            extra: {
              routes: {
                wa: { source: 'whatsapp', secret: SECRETS[0], source_options: { verify_token: VERIFY_TOKEN }, prompt: 'p', deliver: 'log', allow_from: ['*'] },
                other: { secret: SECRETS[0], prompt: 'p', deliver: 'log' },
              },
            },
          },
        },
      },
    });
  });
  afterAll(() => gw?.stop());

  const get = (path: string) => fetch(`${gw.url}${path}`);

  it('echoes hub.challenge as text/plain when hub.verify_token matches, and queues nothing', async () => {
    const res = await get(`/webhooks/wa?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=${VERIFY_TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('1158201444');
    expect(gw.logText()).toContain("answered the whatsapp handshake on route 'wa'");
    expect(gw.logText()).not.toMatch(/accepted/i);
  });

  it('answers 401 to another verify token, and to a GET that is no verification request', async () => {
    const wrong = await get('/webhooks/wa?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=guess');
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain('1158201444');
    expect((await get('/webhooks/wa')).status).toBe(401);
  });

  it('leaves GET on a route whose source takes none as it was: 405 with Allow: POST', async () => {
    const res = await get(`/webhooks/other?hub.mode=subscribe&hub.challenge=1&hub.verify_token=${VERIFY_TOKEN}`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect((await get('/webhooks/nope')).status).toBe(405);
  });
});
