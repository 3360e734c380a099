// The per-job channel in a real agent run (issue 29): a gateway with agent.sandbox mode required runs a `command`
// agent inside bubblewrap, which runs the built `hookwise` CLI. The run's environment carries HOOKWISE_JOB_CHANNEL
// and HOOKWISE_JOB_TOKEN, its sandbox reaches the channel through the egress proxy, and the CLI's installation is
// readable inside: `webhook subscribe` makes a subscription the operator sees outside, `--secret` is refused.
import { readSubscriptions } from '@hookwise/gateway';
import { startTestGateway, type TestGateway } from '@hookwise/testing';
import { agentAnswer } from '../channel-run';
import { CLI_BIN, runCli } from '../cli-process';

jest.setTimeout(120_000);

const SECRET = 'route-secret-0123456789abcdef';
// The prompt (on stdin) holds the subscribe arguments; the answer shows what the CLI said and whether the run saw
// the channel's variables (never their values).
const AGENT = [
  `args=$(cat)`,
  `echo "channel=\${HOOKWISE_JOB_CHANNEL:+set} token=\${HOOKWISE_JOB_TOKEN:+set} home=\${HOOKWISE_HOME:-unset}"`,
  `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI_BIN)} webhook subscribe $args 2>&1`,
  `echo "exit=$?"`,
].join('\n');

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    config: {
      platforms: { webhook: { enabled: true, extra: { routes: { agent: { secret: SECRET, prompt: '{args}', deliver: 'log', actions: { subscribe: {} } } } } } },
      agent: { runner: 'command', command: ['sh', '-c', AGENT], sandbox: { mode: 'required' } },
      store: { backend: 'memory' },
      admin: { enabled: true },
    },
    pollMs: 20,
  });
});

afterAll(async () => {
  await gw?.stop();
});

const agentRun = (deliveryId: string, args: string): Promise<string> => agentAnswer(gw, { route: 'agent', secret: SECRET, deliveryId, args });

it('a sandboxed run subscribes through its channel; the subscription is seen outside, with a secret the agent never saw', async () => {
  const answer = await agentRun('sub-1', 'newroute --events push');
  expect(answer).toContain('channel=set token=set home=unset');
  expect(answer).toContain('exit=0');
  const entry = readSubscriptions(gw.configDir).newroute;
  expect(entry).toMatchObject({ events: ['push'] });
  expect(typeof entry.secret).toBe('string');
  expect(answer).not.toContain(entry.secret!);
  // The operator's view, with the config dir.
  const list = await runCli(['webhook', 'list'], gw.configDir);
  expect(list.code).toBe(0);
  expect(list.stdout).toContain('newroute');
  // The run's token ended with the run.
  expect(gw.gateway.channels.openCount).toBe(0);
});

it('subscribe --secret from a sandboxed run is refused and makes no route', async () => {
  const answer = await agentRun('sub-2', 'backdoor --events push --secret attacker-chosen-secret-0123');
  expect(answer).toContain('--secret cannot be used by an agent run');
  expect(answer).toContain('exit=1');
  expect(readSubscriptions(gw.configDir).backdoor).toBeUndefined();
});
