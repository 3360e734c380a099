// A route action contributed by a plugin the gateway has never heard of: a Gitea-like deliverer defined here, in
// code, adds `gitea.comment` through core's DelivererContribution.actions, and a real gateway offers it to the run's
// agent as an MCP tool on the job channel and performs its calls, with no change to the gateway: its options checked
// at startup, the call checked by the action's own check, a retryable failure retried, `max` enforced, every call
// recorded. A route naming an unknown action, or options the action refuses, stops startup with a clear error.
import { Writable } from 'node:stream';
import { HookwiseError, definePlugin, type Deliverer, type DelivererAction, type DelivererContribution } from '@hookwise/core';
import { validateConfigObject } from '../../src/config/load';
import { Gateway } from '../../src/gateway';
import { createLogger } from '../../src/observe/logger';
import { createMemoryStore } from '../../src/stores/memory';

jest.setTimeout(30_000);

/** The destination as the action sees it: where its comments go (a real plugin would hold an API client here). */
interface GiteaDestination extends Deliverer {
  readonly posted: Array<{ repo: string; number: number; body: string; token: string }>;
}

interface GiteaCommentOptions {
  /** Only bodies that start with one of these prefixes (a plugin's own limit, checked by its own check). */
  prefixes?: string[];
}

const posted: GiteaDestination['posted'] = [];
let failuresLeft = 0;

const giteaComment: DelivererAction<GiteaCommentOptions, GiteaDestination> = {
  name: 'gitea.comment',
  description: 'Comment on the Gitea issue this event is about.',
  optionsSchema: { type: 'object', additionalProperties: false, properties: { prefixes: { type: 'array', items: { type: 'string' } } } },
  inputSchema: { type: 'object', additionalProperties: false, required: ['body'], properties: { body: { type: 'string', minLength: 1 } } },
  check(input, { prefixes }) {
    if (typeof input.body !== 'string' || !input.body.trim()) return { ok: false, reason: 'gitea.comment needs a body' };
    if (prefixes && !prefixes.some((p) => (input.body as string).startsWith(p)))
      return { ok: false, reason: `comments on this route start with one of: ${prefixes.join(', ')}` };
    return { ok: true, input: { body: input.body } };
  },
  async run(input, { deliverer, payload, attempt }) {
    if (failuresLeft > 0) {
      failuresLeft -= 1;
      throw new HookwiseError('HW_E_DELIVERY', `gitea answered 502 (attempt ${attempt})`, { retryable: true });
    }
    const { repository, issue } = payload as { repository: { full_name: string }; issue: { number: number } };
    const comment = { repo: repository.full_name, number: issue.number, body: input.body as string };
    deliverer.posted.push({ ...comment, token: 'from platforms.gitea_comment' });
    return { id: deliverer.posted.length, url: `https://gitea.example/${comment.repo}/issues/${comment.number}#${deliverer.posted.length}` };
  },
};

const giteaDeliverer: DelivererContribution<{ token: string }, GiteaDestination> = {
  kind: 'deliverer',
  id: 'gitea_comment',
  optionsSchema: { type: 'object', properties: { enabled: { type: 'boolean' }, token: { type: 'string' } }, required: ['token'] },
  requiresEnabled: true,
  create: () => ({ posted, deliver: async () => ({ target: 'gitea' }) }),
  actions: [giteaComment],
};

/** An agent that calls the channel's MCP tools the way an MCP client does (JSON-RPC over streamable HTTP). */
const mcpAgent = definePlugin({
  meta: { name: 'mcp-agent-test', version: '1.0.0', api: 2 },
  contributes: [
    giteaDeliverer,
    {
      kind: 'agent',
      id: 'mcp-caller',
      create: () => ({
        async run(task) {
          const env = task.sandbox!.plan('true', [], {}).env;
          const rpc = async (method: string, params: unknown) => {
            const res = await fetch(env.HOOKWISE_JOB_CHANNEL!, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${env.HOOKWISE_JOB_TOKEN}`,
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
              },
              body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
            });
            return ((await res.json()) as { result: Record<string, unknown> }).result;
          };
          const tools = (await rpc('tools/list', {})).tools as Array<{ name: string; description: string }>;
          // The route sets no prompt: the payload as JSON.
          const { calls } = JSON.parse(task.prompt) as { calls: Array<Record<string, unknown>> };
          const results = [];
          for (const args of calls) results.push(await rpc('tools/call', { name: 'gitea.comment', arguments: args }));
          return { text: JSON.stringify({ tools, results, actions: env.HOOKWISE_JOB_ACTIONS }) };
        },
      }),
    },
  ],
});

function gatewayWith(actions: Record<string, unknown>, platforms: Record<string, unknown> = { gitea_comment: { enabled: true, token: 'gt-token' } }) {
  const config = validateConfigObject({
    platforms: {
      ...platforms,
      webhook: {
        enabled: true,
        extra: { host: '127.0.0.1', routes: { issues: { secret: 'INSECURE_NO_AUTH', deliver: 'none', actions } } },
      },
    },
    agent: { runner: 'mcp-caller', sandbox: { mode: 'off' } },
    retry: { base_delay_seconds: 0.05 },
  });
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  return new Gateway({
    config,
    configDir: '/tmp',
    store: createMemoryStore(),
    logger: createLogger({ stream: quiet, format: 'json', level: 'error' }),
    plugins: [{ plugin: mcpAgent, source: 'in code', options: {} }],
    pollMs: 20,
  });
}

let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.stop(1000);
  gateway = undefined;
  posted.length = 0;
  failuresLeft = 0;
});

async function runJob(gw: Gateway, calls: unknown[]) {
  const payload = { calls, repository: { full_name: 'octo/app' }, issue: { number: 7 } };
  const body = JSON.stringify(payload);
  const answer = await gw.pipeline.handle({
    route: 'issues',
    headers: { 'content-type': 'application/json', 'x-request-id': 'gitea-1' },
    body: Buffer.from(body),
  });
  expect(answer.status).toBe(202);
  for (let i = 0; i < 200; i++) {
    const [job] = await gw.store.jobs.list({ route: 'issues' });
    if (job && (job.status === 'done' || job.status === 'dead')) return job;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the job did not end');
}

describe('an action a plugin contributes', () => {
  it('is offered as a tool and performed by its deliverer: its own check, a retried failure, max, all recorded', async () => {
    gateway = gatewayWith({ 'gitea.comment': { max: 2, prefixes: ['bot:'] } });
    await gateway.start();
    failuresLeft = 1;
    const job = await runJob(gateway, [{ body: 'bot: looks good' }, { body: 'no prefix' }, { body: 'bot: second' }, { body: 'bot: third' }]);
    expect(job.status).toBe('done');
    const answer = JSON.parse(job.answer ?? '{}') as {
      tools: Array<{ name: string; description: string }>;
      results: Array<{ isError?: boolean; content: Array<{ text: string }> }>;
      actions: string;
    };
    expect(answer.actions).toBe('gitea.comment');
    expect(answer.tools.map((t) => t.name)).toEqual(['gitea.comment']);
    expect(answer.tools[0].description).toBe('Comment on the Gitea issue this event is about. At most 2 call(s) per event (all runs of this job together).');
    expect(answer.results.map((r) => [Boolean(r.isError), r.content[0].text])).toEqual([
      [false, expect.stringContaining('https://gitea.example/octo/app/issues/7#1')],
      [true, 'refused: comments on this route start with one of: bot:'],
      [false, expect.stringContaining('#2')],
      [true, "refused: 'gitea.comment' may be called at most 2 time(s) per event, and this event's runs have used them"],
    ]);
    expect(posted.map((p) => p.body)).toEqual(['bot: looks good', 'bot: second']);
    const records = (job.usage as { actions?: Array<{ action: string; status: string; attempts: number }> }).actions;
    expect(records?.map(({ action, status, attempts }) => ({ action, status, attempts }))).toEqual([
      { action: 'gitea.comment', status: 'done', attempts: 2 },
      { action: 'gitea.comment', status: 'refused', attempts: 0 },
      { action: 'gitea.comment', status: 'done', attempts: 1 },
      { action: 'gitea.comment', status: 'refused', attempts: 0 },
    ]);
  });

  it('fails the call with a clear message when its deliverer is not enabled', async () => {
    gateway = gatewayWith({ 'gitea.comment': {} }, {});
    await gateway.start();
    const job = await runJob(gateway, [{ body: 'hello' }]);
    const answer = JSON.parse(job.answer ?? '{}') as { results: Array<{ isError?: boolean; content: Array<{ text: string }> }> };
    expect(answer.results[0]).toMatchObject({ isError: true });
    expect(answer.results[0].content[0].text).toBe(
      "failed: gitea.comment needs the gitea_comment destination: set platforms.gitea_comment.enabled and its credentials (see the plugin's README)",
    );
    expect(posted).toEqual([]);
  });
});

describe('startup', () => {
  it('refuses a route naming an unknown action, with a "did you mean" and the known actions', async () => {
    gateway = gatewayWith({ 'gitea.coment': {} });
    await expect(gateway.start()).rejects.toThrow(
      "route 'issues': unknown action 'gitea.coment' (did you mean 'gitea.comment'?); known: gitea.comment, message, subscribe (a deliverer plugin may contribute others)",
    );
  });

  it('refuses options the action does not take, bad values of the ones it does, and missing required ones', async () => {
    gateway = gatewayWith({ 'gitea.comment': { prefix: ['bot:'], prefixes: 'bot:' }, message: {} });
    const err = await gateway.start().then(
      () => undefined,
      (e: AggregateError) => e,
    );
    const problems = (err?.errors ?? []).map(String);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining("route 'issues' actions.gitea.comment: unknown key 'prefix' (did you mean 'prefixes'?); known: prefixes, max"),
        expect.stringContaining("route 'issues' actions.gitea.comment.prefixes: must be array"),
        expect.stringContaining("route 'issues' actions.message"),
      ]),
    );
  });
});
