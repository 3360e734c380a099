// A real gateway for the observability tests (metrics, traces, admin API, dashboard): one signed route, an agent
// that reports token usage, and a deliverer that fails as many times as the delivery id says (`fail2-...`).
import { signGeneric, startTestGateway, type TestGateway, type TestGatewayOptions } from '@hookwise/testing';

export const SECRET = 'observe-test-secret-0123456789';
export const ADMIN_TOKEN = 'admin-token-0123456789-abcdef';
export const METRICS_TOKEN = 'metrics-token-0123456789-abcdef';

/** A plugin file for the config dir: plain CommonJS, recognised by the plugin marker like any copy of core's definePlugin. */
const PLUGIN = `// Test plugin of the observability tests.
const failures = new Map();
module.exports = {
  [Symbol.for('hookwise.plugin')]: true,
  meta: { name: 'observed-test-plugin', version: '1.0.0', api: 2 },
  contributes: [
    {
      kind: 'agent',
      id: 'observed',
      create: () => ({ run: async (task) => ({ text: 'Answer to: ' + task.prompt, usage: { inputTokens: 12, outputTokens: 5 } }) }),
    },
    {
      kind: 'deliverer',
      id: 'flaky',
      create: () => ({
        async deliver(msg) {
          const match = /^fail(\\d+)-/.exec(msg.deliveryId);
          const seen = failures.get(msg.deliveryId) || 0;
          failures.set(msg.deliveryId, seen + 1);
          if (match && seen < Number(match[1])) throw new Error('chat service answered 502 (attempt ' + (seen + 1) + ')');
          return { target: 'chat-room-7', ids: ['msg-' + msg.deliveryId] };
        },
      }),
    },
  ],
};
`;

export function observedConfig(more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    platforms: {
      webhook: {
        enabled: true,
        extra: {
          routes: {
            ci: { secret: SECRET, events: ['push'], deliver: 'flaky', prompt: 'Build {ref} of {repository.name}' },
            docs: { secret: SECRET, deliver: 'flaky', prompt: 'Docs changed: {ref}' },
          },
        },
      },
    },
    agent: { runner: 'observed' },
    retry: { max_attempts: 2, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
    store: { backend: 'memory' },
    plugins: ['./observed-plugin.js'],
    ...more,
  };
}

export function startObserved(more: Record<string, unknown> = {}, options: Partial<TestGatewayOptions> = {}): Promise<TestGateway> {
  return startTestGateway({ config: observedConfig(more), files: { 'observed-plugin.js': PLUGIN }, pollMs: 50, ...options });
}

/** A signed generic-style webhook; `headers` may add X-Request-ID (the delivery id) or traceparent. */
export function send(gw: TestGateway, route: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) {
  const body = JSON.stringify(payload);
  return gw.post(route, body, { 'x-webhook-signature': signGeneric(SECRET, body), ...headers });
}

/** Resolves once no job is pending or running (and at least `count` jobs exist). */
export async function settled(gw: TestGateway, count: number, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const jobs = await gw.gateway.store.jobs.list({ limit: 1000 });
    if (jobs.length >= count && jobs.every((j) => j.status === 'done' || j.status === 'dead')) return;
    if (Date.now() > until) throw new Error(`jobs not settled in ${timeoutMs} ms: ${jobs.map((j) => `${j.deliveryId}=${j.status}`).join(', ')}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
