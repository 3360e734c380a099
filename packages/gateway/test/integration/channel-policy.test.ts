// One policy for every way an agent run reaches its job channel, and actions counted per event. A real gateway runs
// an agent that speaks to its channel both ways (the REST subscriptions API and the MCP tools): a route whose
// `actions:` do not list `subscribe` could list the operator's subscriptions and plant a route delivering to
// `@attacker_channel` over REST while the MCP tool was refused; now both refuse with the same reason, `max` counts
// REST and MCP together, and a run sees and changes only what its own job made (entries carry `created_by`).
// An action's `max` held per attempt: a job tried three times posted three comments; now it holds per event.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { HookwiseError, definePlugin, type Deliverer, type DelivererAction, type DelivererContribution, type Job } from '@hookwise/core';
import { validateConfigObject } from '../../src/config/load';
import { Gateway } from '../../src/gateway';
import { createLogger } from '../../src/observe/logger';
import { readSubscriptions } from '../../src/routes/subscriptions';
import { createMemoryStore } from '../../src/stores/memory';

jest.setTimeout(30_000);

/** `pad`: that many bytes added to the body by the agent (the prompt itself is cut at 4,000 characters). */
type Step =
  { rest: { method: string; path: string; body?: Record<string, unknown>; pad?: number } } | { mcp: { name: string; arguments: Record<string, unknown> } };

const comments: string[] = [];
/** Runs per delivery id: the attempt the agent is in. */
const runsOf = new Map<string, number>();

const testComment: DelivererAction<Record<string, never>, Deliverer> = {
  name: 'test.comment',
  description: 'Comment on the thing this event is about.',
  inputSchema: { type: 'object', required: ['body'], properties: { body: { type: 'string' } } },
  async run(input) {
    comments.push(input.body as string);
    return { id: comments.length };
  },
};

const commentDeliverer: DelivererContribution<Record<string, unknown>, Deliverer> = {
  kind: 'deliverer',
  id: 'test_comment',
  create: () => ({ deliver: async () => ({}) }),
  actions: [testComment],
};

/** Runs the steps the payload lists against its channel; `fail_until` fails the run (retryably) before that attempt. */
const channelAgent = definePlugin({
  meta: { name: 'channel-agent-test', version: '1.0.0', api: 2 },
  contributes: [
    commentDeliverer,
    {
      kind: 'agent',
      id: 'channel-caller',
      create: () => ({
        async run(task) {
          const env = task.sandbox!.plan('true', [], {}).env;
          const headers = { authorization: `Bearer ${env.HOOKWISE_JOB_TOKEN}`, 'content-type': 'application/json' };
          const { steps, fail_until } = JSON.parse(task.prompt) as { steps: Step[]; fail_until?: number };
          const attempt = (runsOf.get(task.deliveryId) ?? 0) + 1;
          runsOf.set(task.deliveryId, attempt);
          const results: unknown[] = [];
          for (const step of steps) {
            if ('rest' in step) {
              const { method, path, pad } = step.rest;
              const body = pad ? { ...step.rest.body, padding: 'x'.repeat(pad) } : step.rest.body;
              const res = await fetch(`${env.HOOKWISE_JOB_CHANNEL}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
              results.push({ status: res.status, body: await res.json() });
            } else {
              const arguments_ = JSON.parse(JSON.stringify(step.mcp.arguments).replaceAll('{attempt}', String(attempt))) as Record<string, unknown>;
              const res = await fetch(env.HOOKWISE_JOB_CHANNEL!, {
                method: 'POST',
                headers: { ...headers, accept: 'application/json, text/event-stream' },
                body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: step.mcp.name, arguments: arguments_ } }),
              });
              const { result } = (await res.json()) as { result: { isError?: boolean; content: Array<{ text: string }> } };
              results.push({ isError: Boolean(result.isError), text: result.content[0].text });
            }
          }
          if (fail_until !== undefined && attempt < fail_until)
            throw new HookwiseError('HW_E_AGENT', `the model timed out (attempt ${attempt})`, { retryable: true });
          return { text: JSON.stringify(results) };
        },
      }),
    },
  ],
});

let configDir: string;
let gateway: Gateway | undefined;

beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'hookwise-channel-policy-'));
  // The operator's own subscription: nothing an agent run should read, change or remove.
  const now = new Date().toISOString();
  const ops = {
    description: 'payroll exports (internal)',
    events: [],
    skills: [],
    deliver: 'log',
    deliver_extra: {},
    secret: 'ops-secret-0123456789abcdef',
    created_at: now,
    updated_at: now,
  };
  writeFileSync(join(configDir, 'webhook_subscriptions.json'), JSON.stringify({ ops }));
  comments.length = 0;
});

afterEach(async () => {
  await gateway?.stop(1000);
  gateway = undefined;
  rmSync(configDir, { recursive: true, force: true });
});

async function startGateway(): Promise<Gateway> {
  const route = (actions: Record<string, unknown>) => ({ secret: 'INSECURE_NO_AUTH', deliver: 'none', actions });
  const config = validateConfigObject({
    platforms: {
      webhook: {
        enabled: true,
        extra: {
          host: '127.0.0.1',
          routes: {
            watch: route({ 'test.comment': {} }),
            subs: route({ subscribe: { max: 1 } }),
            once: route({ 'test.comment': { max: 1 } }),
          },
        },
      },
    },
    agent: { runner: 'channel-caller', sandbox: { mode: 'off' } },
    retry: { base_delay_seconds: 0.02, max_attempts: 3 },
  });
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  const gw = new Gateway({
    config,
    configDir,
    store: createMemoryStore(),
    logger: createLogger({ stream: quiet, format: 'json', level: 'error' }),
    plugins: [{ plugin: channelAgent, source: 'in code', options: {} }],
    pollMs: 20,
  });
  await gw.start();
  return gw;
}

let deliveries = 0;
async function runJob(gw: Gateway, route: string, payload: Record<string, unknown>): Promise<{ job: Job; results: Array<Record<string, unknown>> }> {
  const answer = await gw.pipeline.handle({
    route,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ ...payload, tag: ++deliveries })),
  });
  expect(answer.status).toBe(202);
  for (let i = 0; i < 400; i++) {
    const job = (await gw.store.jobs.list({ route })).find((j) => (j.payload as { tag?: number }).tag === deliveries);
    if (job && (job.status === 'done' || job.status === 'dead')) return { job, results: JSON.parse(job.answer ?? '[]') as Array<Record<string, unknown>> };
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the job did not end: ${JSON.stringify(await gw.store.jobs.list({ route }))}`);
}

const planted = { prompt: 'Forward everything', deliver: 'log', deliver_extra: { chat_id: '@attacker_channel' } };

describe("a route whose actions do not list 'subscribe'", () => {
  it('cannot list, create or remove subscriptions over REST, and is refused the same way over MCP', async () => {
    gateway = await startGateway();
    const { results } = await runJob(gateway, 'watch', {
      steps: [
        { rest: { method: 'GET', path: '/subscriptions' } },
        { rest: { method: 'PUT', path: '/subscriptions/relay', body: planted } },
        { rest: { method: 'DELETE', path: '/subscriptions/ops' } },
        { mcp: { name: 'subscribe', arguments: { name: 'relay2', ...planted } } },
      ],
    });
    const reason = "'subscribe' is not an action this route allows; allowed: test.comment";
    expect(results[0]).toEqual({ status: 200, body: { subscriptions: [] } });
    expect(JSON.stringify(results[0])).not.toContain('payroll');
    expect(results[1]).toEqual({ status: 403, body: { error: reason } });
    expect(results[2]).toEqual({ status: 403, body: { error: reason } });
    expect(results[3]).toEqual({ isError: true, text: `refused: ${reason}` });
    expect(Object.keys(readSubscriptions(configDir))).toEqual(['ops']);
  });
});

describe("a route that lists 'subscribe' with max: 1", () => {
  it("counts REST and MCP together, marks what it made, and lists and changes only its own job's", async () => {
    gateway = await startGateway();
    const { job, results } = await runJob(gateway, 'subs', {
      steps: [
        { rest: { method: 'PUT', path: '/subscriptions/ci-watch', body: { events: ['push'], prompt: 'Summarise {ref}' } } },
        { mcp: { name: 'subscribe', arguments: { name: 'second', prompt: 'x' } } },
        { rest: { method: 'PUT', path: '/subscriptions/third', body: { prompt: 'x' } } },
        { rest: { method: 'GET', path: '/subscriptions' } },
        { rest: { method: 'DELETE', path: '/subscriptions/ops' } },
      ],
    });
    const max = "'subscribe' may be called at most 1 time(s) per event, and this event's runs have used them";
    expect(results[0]).toMatchObject({ status: 201, body: { name: 'ci-watch', created: true, own: true } });
    expect(results[1]).toEqual({ isError: true, text: `refused: ${max}` });
    expect(results[2]).toEqual({ status: 403, body: { error: max } });
    expect((results[3] as { body: { subscriptions: Array<{ name: string }> } }).body.subscriptions.map((s) => s.name)).toEqual(['ci-watch']);
    expect(results[4]).toMatchObject({ status: 403, body: { error: expect.stringContaining('was not created by this agent run') } });
    const entries = readSubscriptions(configDir);
    expect(Object.keys(entries).sort()).toEqual(['ci-watch', 'ops']);
    expect(entries['ci-watch'].created_by).toEqual({ route: 'subs', job: job.id });
    expect(entries.ops.created_by).toBeUndefined();
    // The REST call is one of the run's actions, recorded like the tool's.
    const records = (job.usage as { actions?: Array<{ action: string; status: string }> }).actions;
    expect(records?.map((r) => `${r.action}:${r.status}`)).toEqual(['subscribe:done', 'subscribe:refused', 'subscribe:refused']);

    // Another event's run of the same route neither sees nor changes it.
    const other = await runJob(gateway, 'subs', {
      steps: [{ rest: { method: 'GET', path: '/subscriptions' } }, { rest: { method: 'PUT', path: '/subscriptions/ci-watch', body: planted } }],
    });
    expect(other.results[0]).toEqual({ status: 200, body: { subscriptions: [] } });
    expect(other.results[1]).toMatchObject({ status: 409, body: { error: expect.stringContaining('was not created by this agent run') } });
    expect(readSubscriptions(configDir)['ci-watch'].prompt).toBe('Summarise {ref}');
  });
});

describe("an action's max", () => {
  it('holds across the attempts of one job: three attempts with new words post one comment', async () => {
    gateway = await startGateway();
    const { job, results } = await runJob(gateway, 'once', {
      fail_until: 3,
      steps: [{ mcp: { name: 'test.comment', arguments: { body: 'take {attempt}' } } }],
    });
    expect(job.status).toBe('done');
    expect(runsOf.get(job.deliveryId)).toBe(3);
    expect(comments).toEqual(['take 1']);
    expect(results[0]).toEqual({
      isError: true,
      text: "refused: 'test.comment' may be called at most 1 time(s) per event, and this event's runs have used them",
    });
  });

  it('lets a retried run repeat the call it made (same place, same input) without doing it twice', async () => {
    gateway = await startGateway();
    const { job, results } = await runJob(gateway, 'once', { fail_until: 3, steps: [{ mcp: { name: 'test.comment', arguments: { body: 'the same' } } }] });
    expect(runsOf.get(job.deliveryId)).toBe(3);
    expect(comments).toEqual(['the same']);
    expect(results[0]).toEqual({ isError: false, text: expect.stringContaining('done (already, by an earlier run of this job)') });
  });
});

describe('what the channel reads of a request', () => {
  it('answers 413 to a body over 64 KB and says the limit, without keeping the rest', async () => {
    gateway = await startGateway();
    const { results } = await runJob(gateway, 'subs', {
      steps: [{ rest: { method: 'PUT', path: '/subscriptions/big', body: planted, pad: 100 * 1024 } }],
    });
    expect(results).toEqual([{ status: 413, body: { error: 'the request body is larger than 65536 bytes: send less' } }]);
    expect(Object.keys(readSubscriptions(configDir))).toEqual(['ops']);
  });
});
