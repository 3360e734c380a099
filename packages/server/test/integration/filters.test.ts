// Route filters over real HTTP with the real worker and the memory store: a filtered GitHub event is answered
// 200 ignored with reason filter and runs no agent, the log names the failing test; a config whose filter does
// not compile is refused at startup naming the route. (Unit tests of each operator: packages/gateway/test/unit/filters.test.ts.)
import { githubFixture, signGithub, startTestGateway, type TestGateway } from '@hookwise/testing';

const SECRET = 'it-is-a-test-secret-0123456789';
const opened = githubFixture('pull_request.opened');
const labeled = Buffer.from(JSON.stringify({ ...JSON.parse(opened.toString()), action: 'labeled', label: { name: 'bug' } }));

function config(route: Record<string, unknown>) {
  return {
    platforms: {
      webhook: { enabled: true, extra: { routes: { prs: { secret: SECRET, events: ['pull_request'], prompt: 'review {action} #{number}', ...route } } } },
    },
  };
}

/** Posts a body as GitHub does: signed over its exact bytes, with its event and delivery headers. */
function github(gw: TestGateway, body: Buffer, delivery: string, event = 'pull_request') {
  return gw.post('prs', body, { 'x-hub-signature-256': signGithub(SECRET, body), 'x-github-event': event, 'x-github-delivery': delivery });
}

const agentRuns = (gw: TestGateway) => gw.logs.filter((l) => String(l.message).startsWith("response for route 'prs'")).map((l) => String(l.message));

describe('filter: over HTTP', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
  });

  it('answers a labeled pull_request 200 ignored (reason filter) and runs the agent only for the opened one', async () => {
    gw = await startTestGateway({
      config: config({
        filter: [
          { path: 'action', in: ['opened', 'synchronize'] },
          { path: 'pull_request.draft', equals: false },
        ],
      }),
    });
    const events: Array<Record<string, unknown>> = [];
    gw.gateway.on('ignored', (e) => events.push({ reason: e.reason, filter: e.filter, deliveryId: e.deliveryId }));
    const ignored = await github(gw, labeled, 'd-labeled');
    expect(events).toEqual([{ reason: 'filter', filter: 'action is "labeled", not one of "opened", "synchronize"', deliveryId: 'd-labeled' }]);
    expect(ignored.status).toBe(200);
    expect(ignored.body).toEqual({ status: 'ignored', event: 'pull_request', reason: 'filter' });
    const line = await gw.waitForLog('filtered out');
    expect(line).toMatchObject({
      level: 'info',
      message: `event 'pull_request' filtered out by route 'prs': action is "labeled", not one of "opened", "synchronize"`,
      reason: 'filter',
      delivery_id: 'd-labeled',
    });
    // The log names the test, never the payload.
    expect(gw.logText()).not.toContain('Codertocat');

    const accepted = await github(gw, opened, 'd-opened');
    expect(accepted.status).toBe(202);
    await gw.waitForLog('delivered d-opened');
    expect(agentRuns(gw)).toEqual([expect.stringContaining('review opened #2')]);

    // The filtered delivery id is remembered like an event-type miss: GitHub's redelivery is a duplicate.
    expect((await github(gw, labeled, 'd-labeled')).body).toEqual({ status: 'duplicate', delivery_id: 'd-labeled' });
  });

  it('an event-type miss says nothing new: the body stays {status, event}, the log has reason event', async () => {
    gw = await startTestGateway({ config: config({ filter: { path: 'action', equals: 'opened' } }) });
    const push = githubFixture('push');
    const res = await github(gw, push, 'd-push', 'push');
    expect(res.body).toEqual({ status: 'ignored', event: 'push' });
    expect(await gw.waitForLog("event 'push' ignored by route 'prs'")).toMatchObject({ reason: 'event' });
  });

  it('evaluates a JSONata expression: a pull request with the needs-review label runs, others are ignored', async () => {
    gw = await startTestGateway({ config: config({ filter: { expression: "'needs-review' in pull_request.labels.name" } }) });
    const payload = JSON.parse(opened.toString()) as { pull_request: { labels: Array<{ name: string }> } };
    payload.pull_request.labels.push({ name: 'needs-review' });
    const wanted = Buffer.from(JSON.stringify(payload));
    expect((await github(gw, opened, 'd-plain')).body).toEqual({ status: 'ignored', event: 'pull_request', reason: 'filter' });
    expect(String((await gw.waitForLog('filtered out')).message)).toContain(`expression "'needs-review' in pull_request.labels.name" gave false, not true`);
    expect((await github(gw, wanted, 'd-wanted')).status).toBe(202);
    await gw.waitForLog('delivered d-wanted');
    expect(agentRuns(gw)).toHaveLength(1);
  });

  it('an expression that fails at evaluation counts as not passed: 200 ignored and a warning', async () => {
    gw = await startTestGateway({ config: config({ filter: { expression: 'action + 1 > 0' } }) });
    expect((await github(gw, opened, 'd-1')).body).toMatchObject({ status: 'ignored', reason: 'filter' });
    const warning = await gw.waitForLog('filtered out');
    expect(warning.level).toBe('warn');
    expect(String(warning.message)).toContain('failed: T2001');
  });

  it.each([
    [{ expression: "action = 'opened' and (" }, /route 'prs' filter: the JSONata expression "action = 'opened' and \(" does not parse at position 23: S0203/],
    [[{ path: 'ref', matches: '^refs/(heads' }], /route 'prs' filter\[0\]: the regular expression "\^refs\/\(heads" is invalid/],
    [{ path: 'action', equals: 'opened', not_equals: 'closed' }, /route 'prs' filter: a test takes exactly one of .* \(it has equals and not_equals\)/],
  ])('refuses to start with a filter that does not compile: %j', async (filter, message) => {
    await expect(startTestGateway({ config: config({ filter }) })).rejects.toThrow(message);
  });
});

describe('coalesce and concurrency_key over HTTP (the pipeline side)', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
  });

  /** The opened fixture as GitHub would send a later event on the same pull request. */
  const event = (action: string) => Buffer.from(JSON.stringify({ ...JSON.parse(opened.toString()), action }));

  it('renders the keys from the payload, answers "coalesced": true for an event that joined a waiting job, and runs the agent once', async () => {
    gw = await startTestGateway({
      config: config({
        coalesce: { key: '{repository.full_name}#{pull_request.number}', window_seconds: 1 },
        concurrency_key: 'repo {repository.full_name}',
        prompt: 'review {action} #{number} ({__event_count__} events)',
      }),
      pollMs: 20,
    });
    const first = await github(gw, event('opened'), 'c-1');
    expect(first.status).toBe(202);
    expect(first.body).not.toHaveProperty('coalesced');
    const second = await github(gw, event('synchronize'), 'c-2');
    expect(second).toMatchObject({ status: 202, body: { status: 'accepted', delivery_id: 'c-2', coalesced: true } });

    const job = await gw.gateway.store.jobs.findByDeliveryId('c-2');
    expect(job).toMatchObject({
      deliveryId: 'c-1',
      coalesceKey: 'Codertocat/Hello-World#2',
      concurrencyKey: 'repo Codertocat/Hello-World',
      coalesced: { deliveryIds: ['c-1', 'c-2'] },
    });
    await gw.waitForLog('delivered c-1');
    expect(agentRuns(gw)).toEqual([expect.stringContaining('review synchronize #2 (2 events)')]);
  });

  it('refuses a key template that holds the whole payload', async () => {
    await expect(startTestGateway({ config: config({ coalesce: { key: '{__raw__}', window_seconds: 5 } }) })).rejects.toThrow(
      /route 'prs' coalesce\.key: \{__raw__\} cannot be part of a key/,
    );
  });
});
