// The gateway is never a destination of its own agents: a route whose agent.sandbox.network lists 127.0.0.1
// and localhost lets its sandboxed agent reach other loopback servers, but not the gateway's own port (webhooks,
// admin API, dashboard, /metrics), which the server registers with the egress proxy once it listens.
import { probeSandbox } from '@hookwise/sandbox';
import { OBEDIENT_COMMAND, startObedientGateway, type ObedientGateway } from './obedient-gateway';

let gw: ObedientGateway | undefined;
let skip: string | undefined;

beforeAll(async () => {
  const found = await probeSandbox();
  if (!found.available) {
    skip = found.reason;
    return;
  }
  gw = await startObedientGateway({
    mode: 'required',
    agent: () => ({ runner: 'command', command: OBEDIENT_COMMAND }),
    network: () => ['127.0.0.1', 'localhost'],
  });
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

it('a sandboxed agent with 127.0.0.1 and localhost listed is refused the gateway port and reaches another loopback server', async () => {
  if (skip) return console.warn(`skipped: ${skip}`);
  const own = `http://127.0.0.1:${gw!.port}/health`;
  const ownByName = `http://localhost:${gw!.port}/health`;
  const text = await gw!.run(`node ${gw!.reach} proxy ${own}; node ${gw!.reach} proxy ${ownByName}; node ${gw!.reach} proxy ${gw!.listed.url}/listed`);
  expect(text).toContain(`reach proxy ${own}: status 403`);
  expect(text).toContain(`reach proxy ${ownByName}: status 403`);
  expect(text).toContain(`reach proxy ${gw!.listed.url}/listed: status 200`);
  expect(gw!.output()).toContain(`is the gateway's own listener`);
}, 40_000);
