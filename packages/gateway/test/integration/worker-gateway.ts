// A real gateway for the worker's endings and budgets tests: an agent that answers what the event asks (answer and
// token usage in the payload), a deliverer that records each delivery in a file of the config dir, and the admin API
// to read jobs back. Runs on the memory store, on SQLite (a real file in the config dir) or on a Redis.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Job } from '@hookwise/core';
import { signGeneric, startTestGateway, type TestGateway, type TestGatewayOptions } from '@hookwise/testing';

export const SECRET = 'worker-test-secret-0123456789';
export const STORES = ['memory', 'sqlite'] as const;
export type StoreName = (typeof STORES)[number];

/**
 * CommonJS, found by the plugin marker. The agent reads the prompt as JSON when it is one (a route without a prompt
 * template gets the payload dump) and answers its `answer` with its `usage`; otherwise it answers about the prompt.
 */
const PLUGIN = `// Test plugin of the worker tests.
const { appendFileSync } = require('node:fs');
const { join } = require('node:path');
module.exports = {
  [Symbol.for('hookwise.plugin')]: true,
  meta: { name: 'worker-test-plugin', version: '1.0.0', api: 2 },
  contributes: [
    {
      kind: 'agent',
      id: 'scripted',
      create: () => ({
        run: async (task) => {
          let payload;
          try { payload = JSON.parse(task.prompt); } catch { return { text: 'Answer to: ' + task.prompt }; }
          return { text: typeof payload.answer === 'string' ? payload.answer : 'Answer to: ' + task.prompt, usage: payload.usage };
        },
      }),
    },
    {
      kind: 'deliverer',
      id: 'recording',
      create: (_options, ctx) => ({
        async deliver(msg) {
          appendFileSync(join(ctx.configDir, 'deliveries.jsonl'), JSON.stringify({ text: msg.text, extra: msg.extra, deliveryId: msg.deliveryId }) + '\\n');
          return { target: 'recorded', ids: [msg.deliveryId] };
        },
      }),
    },
  ],
};
`;

/** `store` is a backend name, or a whole `store:` block (Redis: its url and prefix); `harness`: the test harness's options. */
/** The admin API's token in these gateways. */
export const WORKER_ADMIN_TOKEN = 'worker-admin-token-0123456789';

export function startWorkerGateway(
  store: StoreName | Record<string, unknown>,
  routes: Record<string, Record<string, unknown>>,
  more: Record<string, unknown> = {},
  harness: Partial<TestGatewayOptions> = {},
): Promise<TestGateway> {
  const withSecrets = Object.fromEntries(Object.entries(routes).map(([name, route]) => [name, { secret: SECRET, deliver: 'recording', ...route }]));
  const { agent, ...rest } = more;
  return startTestGateway({
    config: {
      platforms: { webhook: { enabled: true, extra: { routes: withSecrets } } },
      agent: { runner: 'scripted', concurrency: 1, ...(agent as Record<string, unknown> | undefined) },
      retry: { max_attempts: 2, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
      store: typeof store === 'string' ? { backend: store } : store,
      // With a token: an admin API without one refuses to start where agents may reach loopback (no bubblewrap).
      admin: { enabled: true, token: WORKER_ADMIN_TOKEN },
      plugins: ['./worker-plugin.js'],
      ...rest,
    },
    files: { 'worker-plugin.js': PLUGIN },
    pollMs: 50,
    ...harness,
  });
}

/** A signed generic-style webhook with its delivery id (the admin API finds the job by it); answers the 202's body. */
export async function send(gw: TestGateway, route: string, deliveryId: string, payload: Record<string, unknown>): Promise<Record<string, unknown>> {
  const body = JSON.stringify(payload);
  const answer = await gw.post(route, body, { 'x-webhook-signature': signGeneric(SECRET, body), 'x-request-id': deliveryId });
  if (answer.status !== 202) throw new Error(`${deliveryId}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** The job as the gateway's admin API shows it (GET /api/deliveries/:id). */
export async function shown(gw: TestGateway, id: string): Promise<Job> {
  const res = await fetch(`${gw.url}/api/deliveries/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${WORKER_ADMIN_TOKEN}` } });
  if (res.status !== 200) throw new Error(`GET /api/deliveries/${id}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { delivery: Job }).delivery;
}

/** Polls the admin API until the job satisfies `done` (or fails after `timeoutMs`). */
export async function until(gw: TestGateway, id: string, done: (job: Job) => boolean, timeoutMs = 10_000): Promise<Job> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const job = await shown(gw, id);
    if (done(job)) return job;
    if (Date.now() > end) throw new Error(`job ${id} did not get there in ${timeoutMs} ms: ${JSON.stringify(job)}\nlog:\n${gw.logText()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const isDone = (job: Job) => job.status === 'done' || job.status === 'dead';

/** What the recording deliverer received, in order. */
export function recorded(gw: TestGateway): Array<{ text: string; extra: Record<string, string>; deliveryId: string }> {
  try {
    return readFileSync(join(gw.configDir, 'deliveries.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { text: string; extra: Record<string, string>; deliveryId: string });
  } catch {
    return [];
  }
}

/**
 * Waits while fewer than `marginMs` remain in the current clock hour, so that a test's runs all fall into one
 * budget window (hours and UTC days both end on the hour).
 */
export async function awayFromHourEnd(marginMs = 20_000): Promise<void> {
  const left = 3_600_000 - (Date.now() % 3_600_000);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 100));
}
