// The Mattermost source over real HTTP, as Mattermost posts an outgoing webhook in either content type: the token
// in the body decides, a retried post is a duplicate, and the token never reaches the job's payload or the log.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestGateway, type TestGateway } from '@hookwise/testing';

const EXAMPLE_TOKEN = 'zmigewsanbbsdf59xnmduzypjc';
const TOKEN = 'mattermost-token-new-0123456789';
const OLD_TOKEN = 'mattermost-token-old-0123456789';
const FORM = readFileSync(join(__dirname, '..', 'fixtures', 'outgoing.form'), 'utf8');
const JSON_BODY = readFileSync(join(__dirname, '..', 'fixtures', 'outgoing.json'), 'utf8').trim();

let n = 0;
/** The example with this route's token and a post id of its own (the same id: Mattermost posting it again). */
const formWith = (token: string, postId = `post${process.pid}x${++n}`) => FORM.replace(EXAMPLE_TOKEN, token).replace('axdygg1957njfe5pu38saikdho', postId);
const jsonWith = (token: string, postId = `post${process.pid}x${++n}`) => JSON_BODY.replace(EXAMPLE_TOKEN, token).replace('axdygg1957njfe5pu38saikdho', postId);

describe('mattermost: outgoing webhooks over real HTTP', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      config: {
        platforms: {
          webhook: {
            enabled: true,
            extra: { routes: { mm: { source: 'mattermost', secrets: [TOKEN, OLD_TOKEN], prompt: 'p {text}', deliver: 'log', allow_from: ['*'] } } },
          },
        },
      },
    });
  });
  afterAll(() => gw?.stop());

  const form = (body: string) => gw.post('mm', body, { 'content-type': 'application/x-www-form-urlencoded' });
  const json = (body: string) => gw.post('mm', body, { 'content-type': 'application/json' });

  it('accepts the form and the JSON example with the route token (either of a rotation), event outgoing_webhook, delivery id post_id', async () => {
    const viaForm = await form(formWith(TOKEN, `form${process.pid}`));
    expect(viaForm.status).toBe(202);
    expect(viaForm.body).toMatchObject({ status: 'accepted', route: 'mm', event: 'outgoing_webhook', delivery_id: `form${process.pid}` });
    expect((await json(jsonWith(OLD_TOKEN))).status).toBe(202);
  });

  it('answers the same post again 200 duplicate', async () => {
    const body = formWith(TOKEN);
    expect((await form(body)).status).toBe(202);
    const again = await form(body);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('duplicate');
  });

  it('answers 401 to another token and to a body without one', async () => {
    const wrong = await form(formWith('another-token-0123456789'));
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Invalid signature' });
    const missing = await form('channel_name=town-square&text=hi&post_id=p1');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: 'Missing signature' });
  });

  it('keeps the token out of the stored payload and the log', async () => {
    const postId = `secret-check-${process.pid}`;
    expect((await form(formWith(TOKEN, postId))).status).toBe(202);
    const job = await gw.gateway.store.jobs.findByDeliveryId(postId);
    expect(job?.payload).toMatchObject({ post_id: postId, text: 'some text here' });
    expect(JSON.stringify(job)).not.toContain(TOKEN);
    expect(gw.logText()).not.toContain(TOKEN);
  });
});
