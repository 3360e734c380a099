// Real senders on routes that pin no source, and what routes that pin one refuse: the bugs of issue #18 first
// (real GitHub and GitLab headers were answered 401, retries ran the agent twice), then rotation and the config.
import { createHmac } from 'node:crypto';
import { githubFixture, runEsm, startTestGateway, testProcessEnv, type TestGateway } from '@hookwise/testing';

const SECRET = 'sources-test-secret-0123456789';
const OLD_SECRET = 'sources-old-secret-0123456789';
const pr = githubFixture('pull_request.opened');
const githubSign = (secret: string, body: Buffer) =>
  runEsm('@octokit/webhooks-methods', ['sign'], 'sign(args.secret, args.payload)', { secret, payload: body.toString('utf8') });
const hex = (secret: string, body: Buffer | string) => createHmac('sha256', secret).update(body).digest('hex');

function config(routes: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { platforms: { webhook: { enabled: true, extra: { routes, rate_limit: 1000, ...extra } } }, store: { backend: 'memory' } };
}

describe('sources over real HTTP', () => {
  let gw: TestGateway;
  afterEach(async () => {
    await gw?.stop();
  });

  it('accepts a real GitHub webhook (X-Hub-Signature-256, X-GitHub-Event, X-GitHub-Delivery) on a route without source:', async () => {
    gw = await startTestGateway({ config: config({ ci: { secret: SECRET } }) });
    const headers = {
      'X-Hub-Signature-256': githubSign(SECRET, pr),
      'X-GitHub-Event': 'pull_request',
      'X-GitHub-Delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    };
    const res = await gw.post('ci', pr, headers);
    expect(res.body).toEqual({ status: 'accepted', route: 'ci', event: 'pull_request', delivery_id: '72d3162e-cc78-11e3-81ab-4c9367dc0958' });
    const again = await gw.post('ci', pr, headers);
    expect(again.body).toEqual({ status: 'duplicate', delivery_id: '72d3162e-cc78-11e3-81ab-4c9367dc0958' });
  });

  it('accepts a real GitLab webhook (X-Gitlab-Token, X-Gitlab-Event) and drops its retry by Idempotency-Key', async () => {
    gw = await startTestGateway({ config: config({ ci: { secret: SECRET, events: ['merge_request'] } }) });
    const body = JSON.stringify({ object_kind: 'merge_request', object_attributes: { iid: 7 } });
    const headers = { 'X-Gitlab-Token': SECRET, 'X-Gitlab-Event': 'Merge Request Hook', 'Idempotency-Key': 'f6a1c8f2-6c1f-4a69-9c62-1c9c6b7c0f11' };
    const first = await gw.post('ci', body, headers);
    expect(first.body).toEqual({ status: 'accepted', route: 'ci', event: 'Merge Request Hook', delivery_id: 'f6a1c8f2-6c1f-4a69-9c62-1c9c6b7c0f11' });
    const retry = await gw.post('ci', body, { ...headers, 'X-Gitlab-Webhook-UUID': 'another-delivery-uuid' });
    expect(retry.status).toBe(200);
    expect(retry.body.status).toBe('duplicate');
  });

  it("reads the real event header beside the SPEC's signature header, and the SPEC's headers still work", async () => {
    gw = await startTestGateway({ config: config({ ci: { secret: SECRET, events: ['pull_request', 'push'] } }) });
    const mixed = await gw.post('ci', pr, { 'X-CodeHostA-Signature-256': `sha256=${hex(SECRET, pr)}`, 'X-GitHub-Event': 'pull_request' });
    expect(mixed.body).toMatchObject({ status: 'accepted', event: 'pull_request' });
    const spec = await gw.post('ci', pr, {
      'X-CodeHostA-Signature-256': `sha256=${hex(SECRET, pr)}`,
      'X-CodeHostA-Event': 'push',
      'X-CodeHostA-Delivery': 'spec-1',
    });
    expect(spec.body).toEqual({ status: 'accepted', route: 'ci', event: 'push', delivery_id: 'spec-1' });
    // A generic signature: the event type comes from GitHub's header first (SPEC 4.1 step 5), else the payload.
    const generic = await gw.post('ci', '{"event_type":"push"}', { 'X-Webhook-Signature': hex(SECRET, '{"event_type":"push"}'), 'X-Request-ID': 'g-1' });
    expect(generic.body).toEqual({ status: 'accepted', route: 'ci', event: 'push', delivery_id: 'g-1' });
  });

  it('says which secret a failed route uses, never its value', async () => {
    // One gateway per case: failed-authentication lines are written in full once per client and window.
    for (const [route, expected] of [
      ['own', "Invalid signature on route 'own' (github: digest does not match; checked against the route's own secret)"],
      ['inherits', "Invalid signature on route 'inherits' (github: digest does not match; checked against the global secret)"],
    ]) {
      gw = await startTestGateway({ config: config({ own: { secret: SECRET }, inherits: {} }, { secret: OLD_SECRET }) });
      const signedWith = route === 'own' ? OLD_SECRET : SECRET;
      expect((await gw.post(route, pr, { 'X-Hub-Signature-256': githubSign(signedWith, pr) })).status).toBe(401);
      const text = gw.logText();
      expect(text).toContain(expected);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(OLD_SECRET);
      await gw.stop();
    }
  });

  it('rotates secrets: either of secrets: [new, old] verifies, the log names the old one by position, and removing it refuses it', async () => {
    gw = await startTestGateway({ config: config({ r: { secrets: [SECRET, OLD_SECRET] } }) });
    const body = '{"event_type":"push"}';
    expect((await gw.post('r', body, { 'X-Webhook-Signature': hex(SECRET, body) })).status).toBe(202);
    expect((await gw.post('r', body, { 'X-Webhook-Signature': hex(OLD_SECRET, body) })).status).toBe(202);
    await gw.waitForLog("route 'r' verified with secret #2 of 2");
    await gw.stop();
    gw = await startTestGateway({ config: config({ r: { secrets: [SECRET] } }) });
    expect((await gw.post('r', body, { 'X-Webhook-Signature': hex(OLD_SECRET, body) })).status).toBe(401);
  });

  it('rotates the global secret through WEBHOOK_SECRET=new,old', async () => {
    gw = await startTestGateway({
      config: config({ r: {} }),
      env: testProcessEnv(undefined, { WEBHOOK_SECRET: `${SECRET},${OLD_SECRET}` }),
    });
    const body = '{"event_type":"push"}';
    expect((await gw.post('r', body, { 'X-Webhook-Signature': hex(OLD_SECRET, body) })).status).toBe(202);
    expect((await gw.post('r', body, { 'X-Webhook-Signature': hex(SECRET, body) })).status).toBe(202);
    expect((await gw.post('r', body, { 'X-Webhook-Signature': hex('a-third-secret-0123456789', body) })).status).toBe(401);
  });

  it('pins every route to the global source: a GitHub-only gateway refuses the generic style', async () => {
    gw = await startTestGateway({ config: config({ r: { secret: SECRET } }, { source: 'codehost_a' }) });
    const body = '{"event_type":"push"}';
    const generic = await gw.post('r', body, { 'X-Webhook-Signature': hex(SECRET, body) });
    expect(generic).toMatchObject({ status: 401, body: { error: 'Missing signature' } });
    expect((await gw.post('r', pr, { 'X-Hub-Signature-256': githubSign(SECRET, pr), 'X-GitHub-Event': 'pull_request' })).status).toBe(202);
  });

  it('refuses to start on an unknown source or bad source options, naming the route and the known sources', async () => {
    await expect(startTestGateway({ config: config({ r: { secret: SECRET, source: 'stripey' } }) })).rejects.toThrow(
      /route 'r': unknown source 'stripey'; known: .*github \(codehost_a\)/,
    );
    await expect(
      startTestGateway({ config: config({ r: { secret: SECRET, source: 'gitlab', source_options: { tolerance_seconds: 'soon' } } }) }),
    ).rejects.toThrow(/route 'r' source_options\.tolerance_seconds/);
  });

  it('serves a subscription pinned to a source, with its own rotated secrets', async () => {
    const subscriptions = {
      sub: {
        events: [],
        secrets: [SECRET, OLD_SECRET],
        source: 'github',
        skills: [],
        deliver: 'log',
        deliver_extra: {},
        created_at: '2026-11-23T00:00:00Z',
        updated_at: '2026-11-23T00:00:00Z',
      },
    };
    gw = await startTestGateway({ config: config({}), files: { 'webhook_subscriptions.json': JSON.stringify(subscriptions) } });
    expect((await gw.post('sub', pr, { 'X-Hub-Signature-256': githubSign(OLD_SECRET, pr), 'X-GitHub-Event': 'pull_request' })).status).toBe(202);
    const body = '{"event_type":"push"}';
    expect((await gw.post('sub', body, { 'X-Webhook-Signature': hex(SECRET, body) })).status).toBe(401);
  });
});
