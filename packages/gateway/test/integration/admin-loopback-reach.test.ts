// An admin API without admin.token answers every loopback client. An agent that can reach loopback (its network
// lists localhost, or it runs unsandboxed) read every stored payload and approved another event's held answer
// through it; the egress proxy now refuses the gateway's own listeners, and as a second wall such a gateway does
// not start: the error names the route and the fix (admin.token).
import { Writable } from 'node:stream';
import type { SandboxProbe } from '@hookwise/sandbox';
import { validateConfigObject } from '../../src/config/load';
import { Gateway } from '../../src/gateway';
import { createLogger } from '../../src/observe/logger';
import { createMemoryStore } from '../../src/stores/memory';

const TOKEN = 'admin-token-0123456789abcdef';
const available = async (): Promise<SandboxProbe> => ({ available: true, bwrapPath: '/usr/bin/bwrap', reason: 'bwrap works (test)' });
const missing = async (): Promise<SandboxProbe> => ({ available: false, reason: 'bwrap was not found on PATH', fix: 'install bubblewrap' });

function gatewayWith(more: { admin?: Record<string, unknown>; sandbox?: Record<string, unknown>; routeSandbox?: Record<string, unknown> }, probe = available) {
  const route = { secret: 'INSECURE_NO_AUTH', deliver: 'log', ...(more.routeSandbox ? { agent: { sandbox: more.routeSandbox } } : {}) };
  const config = validateConfigObject({
    platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', routes: { watch: route } } } },
    agent: { runner: 'echo', sandbox: more.sandbox ?? { mode: 'auto' } },
    ...(more.admin ? { admin: more.admin } : {}),
  });
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  return new Gateway({
    config,
    configDir: '/tmp',
    store: createMemoryStore(),
    logger: createLogger({ stream: quiet, format: 'json', level: 'error' }),
    sandbox: { probe },
  });
}

let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.stop(1000).catch(() => undefined);
  gateway = undefined;
});

async function startError(gw: Gateway): Promise<string> {
  gateway = gw;
  const err = await gw.start().then(
    () => undefined,
    (e: Error & { errors?: unknown[] }) => e,
  );
  return err ? [err.message, ...(err.errors ?? []).map(String)].join('\n') : '';
}

describe('an admin API without admin.token', () => {
  it("refuses to start when a route's sandbox network lists localhost", async () => {
    const text = await startError(gatewayWith({ admin: { enabled: true }, routeSandbox: { network: ['localhost'] } }));
    expect(text).toContain("admin: route 'watch' lets its agent reach loopback (sandbox network: localhost)");
    expect(text).toContain('set admin.token: ${HOOKWISE_ADMIN_TOKEN}');
  });

  it('refuses to start when the global network lists 127.0.0.1 with a port, or ::1', async () => {
    const text = await startError(gatewayWith({ admin: { ui: true }, sandbox: { mode: 'auto', network: ['127.0.0.1:8080', '[::1]:9000'] } }));
    expect(text).toContain('sandbox network: 127.0.0.1:8080, [::1]:9000');
  });

  it('refuses to start when agents run unsandboxed: mode off, or auto without bubblewrap', async () => {
    expect(await startError(gatewayWith({ admin: { enabled: true }, sandbox: { mode: 'off' } }))).toContain('runs its agent unsandboxed');
    await gateway?.stop(1000).catch(() => undefined);
    expect(await startError(gatewayWith({ admin: { enabled: true } }, missing))).toContain('runs its agent unsandboxed');
  });

  it('starts with admin.token, without the admin API, or when no agent reaches loopback', async () => {
    expect(await startError(gatewayWith({ admin: { enabled: true, token: TOKEN }, sandbox: { mode: 'off' } }))).toBe('');
    await gateway?.stop(1000);
    expect(await startError(gatewayWith({ sandbox: { mode: 'off' } }))).toBe('');
    await gateway?.stop(1000);
    expect(await startError(gatewayWith({ admin: { enabled: true }, routeSandbox: { network: ['api.github.com'] } }))).toBe('');
  });
});
