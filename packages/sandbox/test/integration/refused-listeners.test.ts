// The gateway is never a destination of its own agents: its listeners, registered with the proxy once the
// server listens, are refused even to a run whose network lists 127.0.0.1 and localhost, while another local
// server (a dev server, the run's job channel) stays reachable.
import { spawnSync } from 'node:child_process';
import { EgressProxy, openSandboxRun, probeSandbox, reachesListener, resolveSandboxPolicy, type SandboxRun } from '../../src';
import { fetchScript, runShell, serve, shq, type Served } from '../helpers';

const bwrap = spawnSync('sh', ['-c', 'command -v bwrap']).stdout.toString().trim();
const testWithBwrap = bwrap ? test : test.skip;

let proxy: EgressProxy;
let gateway: Served;
let devServer: Served;
let run: SandboxRun | undefined;
const refusals: string[] = [];

beforeAll(async () => {
  proxy = await EgressProxy.start({ logger: { warn: (message, meta) => refusals.push(`${message} ${JSON.stringify(meta)}`) } });
  // Bound to the any-address like a gateway on 0.0.0.0: reachable on every address of the machine.
  gateway = await serve('gateway-admin', '0.0.0.0');
  devServer = await serve('dev-server');
});
afterAll(async () => {
  await run?.close();
  await proxy.close();
  await gateway.close();
  await devServer.close();
});

testWithBwrap('a run listing 127.0.0.1 and localhost cannot reach a refused listener but reaches another local server', async () => {
  run = await openSandboxRun({
    decision: resolveSandboxPolicy('required', await probeSandbox()),
    proxy,
    label: 'job refused-listener',
    network: ['127.0.0.1', 'localhost'],
  });
  // The server learns its port after the proxy started (and after this run opened): registered now.
  proxy.refuse([{ host: '0.0.0.0', port: gateway.port }]);
  const fetches = [
    `http://127.0.0.1:${gateway.port}/api/events?token=adm1n`,
    `http://localhost:${gateway.port}/api/events`,
    `http://127.0.0.1:${devServer.port}/ok`,
  ];
  const out = await runShell(run, fetches.map((url) => `node -e ${shq(fetchScript(url))}`).join('; '));
  const lines = out.stdout.trim().split('\n');
  expect(lines[0]).toBe(
    `STATUS 403 hookwise sandbox proxy: refused: 127.0.0.1:${gateway.port} is the gateway's own listener (0.0.0.0:${gateway.port}), which no agent may reach`,
  );
  expect(lines[1]).toContain(`STATUS 403 hookwise sandbox proxy: refused: localhost:${gateway.port} is the gateway's own listener`);
  expect(lines[2]).toBe('STATUS 200 dev-server saw /ok');
  expect(gateway.requests).toEqual([]);
  expect(refusals.join('\n')).toContain(`"job":"job refused-listener","host":"127.0.0.1","port":${gateway.port}`);
  expect(refusals.join('\n')).not.toContain('adm1n');
});

test('which addresses reach a listener: the any-address answers on loopback and the interfaces, loopback on loopback only', () => {
  const any = [{ host: '0.0.0.0', port: 8644 }];
  expect(reachesListener(any, '127.0.0.1', 8644)).toBeDefined();
  expect(reachesListener(any, '::1', 8644)).toBeDefined();
  expect(reachesListener(any, '::ffff:127.0.0.5', 8644)).toBeDefined();
  expect(reachesListener(any, '127.0.0.1', 8645)).toBeUndefined();
  expect(reachesListener(any, '93.184.216.34', 8644)).toBeUndefined();
  const loopback = [{ host: '127.0.0.1', port: 8644 }];
  expect(reachesListener(loopback, '127.0.0.1', 8644)).toBeDefined();
  expect(reachesListener(loopback, '::1', 8644)).toBeDefined();
  expect(reachesListener(loopback, '10.0.0.5', 8644)).toBeUndefined();
  expect(reachesListener([{ host: '10.0.0.5', port: 443 }], '10.0.0.5', 443)).toBeDefined();
  expect(reachesListener([{ host: 'localhost', port: 80 }], '127.0.0.1', 80)).toBeDefined();
});
