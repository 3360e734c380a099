// What agent runs came to, through the real `hookwise` binary against a running gateway's admin API: `deliveries
// show` prints tokens, silent and skipped outcomes, why a job waits and the events a coalesced job stands for;
// `deliveries list` marks them (and filters by outcome); `deliveries usage` and `routes list` sum them per route.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SILENT_TEXT, createLogger, openConfiguredStore, writeRunFile } from '@hookwise/gateway';
import { loadFirstPartyPlugins } from '../../src/first-party';
import type { TestGateway } from '@hookwise/testing';
import {
  COALESCED_IDS,
  SILENT_NOTE,
  SKIPPED_NOTE,
  budgetedConfig,
  heldNote,
  heldUntil,
  startWithRunFacts,
  writeRunFacts,
} from '../../../server/test/integration/run-facts';
import { runCli } from '../cli-process';
import { type Gateway as GatewayProcess, ciWebhookPlatform, post, startGateway, stop } from '../deliveries-process';

jest.setTimeout(90_000);

let gw: TestGateway;
let now: number;

beforeAll(async () => {
  ({ gw, now } = await startWithRunFacts({ admin: { enabled: true } }));
  // What `hookwise gateway run` writes while it serves: the CLI finds the admin API through it.
  writeRunFile(gw.configDir, { pid: process.pid, url: gw.url, host: '127.0.0.1', port: gw.port, started_at: new Date().toISOString() });
});
afterAll(async () => {
  await gw?.stop();
});

const cli = async (...args: string[]) => {
  const result = await runCli(args, gw.configDir);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result.stdout;
};

describe('hookwise deliveries show: the run facts', () => {
  it('prints the tokens of a delivered job', async () => {
    const out = await cli('deliveries', 'show', 'facts-delivered');
    expect(out).toContain('  outcome: delivered\n');
    expect(out).toContain('  tokens: 1,200 in / 340 out (800 cached, 100 cache write)\n');
    expect(out).toContain('  concurrency key: hookwise#8\n');
    expect(out).not.toContain('coalesced:');
  });

  it('says a silent job delivered nothing, and why', async () => {
    const out = await cli('deliveries', 'show', 'facts-silent');
    expect(out).toContain(`  outcome: ${SILENT_TEXT}\n`);
    expect(SILENT_TEXT).toBe('silent: the agent had nothing to say; nothing delivered');
    expect(out).toContain(`  note: ${SILENT_NOTE}\n`);
    expect(out).toContain('  tokens: 50 in / 2 out\n');
  });

  it('says a skipped job was skipped with its note', async () => {
    const out = await cli('deliveries', 'show', 'facts-skipped');
    expect(out).toContain(`  outcome: skipped: ${SKIPPED_NOTE}\n`);
    expect(out).not.toContain('tokens:');
  });

  it("prints a held job's note and when it runs", async () => {
    const out = await cli('deliveries', 'show', 'facts-held');
    expect(out).toContain(`next run: ${new Date(heldUntil(now)).toISOString()}\n`);
    expect(out).toContain(`  waiting: ${heldNote(now)}\n`);
    expect(out).not.toContain('outcome:');
  });

  it('prints the events a coalesced job stands for and its keys, found by any of its delivery ids', async () => {
    const out = await cli('deliveries', 'show', COALESCED_IDS[2]);
    expect(out).toContain(`Delivery ${COALESCED_IDS[0]} `);
    expect(out).toContain(`  coalesced: stands for 3 events: ${COALESCED_IDS.join(', ')}   key: hookwise#7\n`);
  });

  it('--json prints the fields as stored', async () => {
    const silent = JSON.parse(await cli('deliveries', 'show', 'facts-silent', '--json')) as Record<string, unknown>;
    expect(silent).toMatchObject({ outcome: 'silent', note: SILENT_NOTE, usage: { inputTokens: 50, outputTokens: 2 } });
    const coalesced = JSON.parse(await cli('deliveries', 'show', COALESCED_IDS[0], '--json')) as Record<string, unknown>;
    expect(coalesced).toMatchObject({ coalesceKey: 'hookwise#7', concurrencyKey: 'hookwise#7', coalesced: { deliveryIds: COALESCED_IDS } });
  });
});

describe('hookwise deliveries list: outcome, events and tokens', () => {
  it('marks silent, skipped and held jobs, counts coalesced events and shows tokens', async () => {
    const out = await cli('deliveries', 'list', '--wide');
    expect(out).toMatch(/^DELIVERY ID\s+ROUTE\s+EVENT\s+STATUS\s+STEP\s+ATTEMPTS\s+EVENTS\s+TOKENS\s+RECEIVED\s+LAST ERROR \/ NOTE$/m);
    const row = (id: string) => out.split('\n').find((line) => line.startsWith(`${id} `)) ?? '';
    expect(row('facts-delivered')).toMatch(/\sdone\s+deliver\s+1\s+1\s+1,540\s/);
    expect(row('facts-silent')).toMatch(/\sdone \(silent\)\s.*\s1\s+52\s/);
    expect(row('facts-skipped')).toMatch(/\sdone \(skipped\)\s.*\s1\s+-\s.*route budget runs_per_hour \(20\) spent/);
    expect(row('facts-held')).toMatch(/\spending \(held\)\s/);
    expect(row(COALESCED_IDS[0])).toMatch(/\spending\s+agent\s+0\s+3\s+-\s/);
  });

  it('--outcome keeps the done jobs that ended so; --status still filters', async () => {
    const silent = JSON.parse(await cli('deliveries', 'list', '--outcome', 'silent', '--json')) as Array<{ deliveryId: string }>;
    expect(silent.map((j) => j.deliveryId)).toEqual(['facts-silent']);
    const delivered = JSON.parse(await cli('deliveries', 'list', '--outcome', 'delivered', '--json')) as Array<{ deliveryId: string }>;
    expect(delivered.map((j) => j.deliveryId)).toEqual(['facts-delivered']);
    const pending = JSON.parse(await cli('deliveries', 'list', '--status', 'pending', '--json')) as Array<{ deliveryId: string }>;
    expect(pending.map((j) => j.deliveryId).sort()).toEqual([COALESCED_IDS[0], 'facts-held'].sort());
    const refused = await runCli(['deliveries', 'list', '--outcome', 'silent', '--status', 'pending'], gw.configDir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--outcome silent lists done jobs only: leave out --status pending');
  });
});

describe('usage per route', () => {
  it('hookwise deliveries usage sums the stored jobs per route beside the budget counters', async () => {
    const out = await cli('deliveries', 'usage');
    expect(out).toMatch(/^Jobs received since \S+Z: 5\.$/m);
    expect(out).toMatch(
      /^ROUTE\s+EVENTS\s+JOBS\s+AGENT RUNS\s+DELIVERED\s+SILENT\s+SKIPPED\s+DEAD\s+OPEN\s+INPUT TOKENS\s+OUTPUT TOKENS\s+CACHED\s+CACHE WRITE\s+RUNS THIS HOUR\s+TOKENS TODAY$/m,
    );
    expect(out).toMatch(/^ci\s+7\s+5\s+2\s+1\s+1\s+1\s+0\s+2\s+1,250\s+342\s+800\s+100\s+12\/20\s+3,400\/100,000$/m);
    expect(out).toMatch(/^docs\s+0\s+0\s+0\s+0\s+0\s+0\s+0\s+0\s+0\s+0\s+0\s+0\s+0\s+0$/m);
    expect(out).toContain('All routes together (agent.budget): 13/100 runs this hour, 0 tokens today.');

    const json = JSON.parse(await cli('deliveries', 'usage', '--route', 'ci', '--since', '1h', '--json')) as { routes: Array<Record<string, unknown>> };
    expect(json.routes).toEqual([
      expect.objectContaining({ route: 'ci', runsThisHour: 12, tokensToday: 3400, stored: expect.objectContaining({ inputTokens: 1250, silent: 1 }) }),
    ]);
    const bad = await runCli(['deliveries', 'usage', '--since', 'last week'], gw.configDir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--since must be a duration back from now such as 30m, 24h or 7d');
  });

  it('hookwise routes list shows runs this hour and tokens today against the budget', async () => {
    const out = await cli('routes', 'list', '--wide');
    expect(out).toMatch(/^NAME\s+ORIGIN\s+STATUS\s+SOURCE\s+EVENTS\s+DELIVER\s+SECRET\s+RUNS THIS HOUR\s+TOKENS TODAY\s+URL$/m);
    expect(out).toMatch(/^ci\s+static\s+active\s+.*\s12\/20\s+3,400\/100,000\s+http:/m);
    expect(out).toMatch(/^docs\s+static\s+active\s+.*\s0\s+0\s+http:/m);
    const json = JSON.parse(await cli('routes', 'list', '--json')) as Array<Record<string, unknown>>;
    expect(json[0]).toMatchObject({
      name: 'ci',
      budget: { runs_per_hour: 20, tokens_per_day: 100_000, when_exceeded: 'wait' },
      runs_this_hour: 12,
      tokens_today: 3400,
    });
  });
});

describe('without a running gateway: the same facts from the SQLite store', () => {
  let home: string;
  let stored: number;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'hookwise-run-facts-'));
    // The budgeted config on SQLite, without the test plugin: built-in agent and deliverer.
    const config = budgetedConfig({ store: { backend: 'sqlite' }, plugins: [] }) as {
      platforms: { webhook: { extra: { routes: Record<string, Record<string, unknown>> } } };
      agent: Record<string, unknown>;
    };
    for (const route of Object.values(config.platforms.webhook.extra.routes)) route.deliver = 'log';
    config.agent.runner = 'echo';
    writeFileSync(join(home, 'config.yaml'), JSON.stringify(config, null, 2));
    const opened = await openConfiguredStore(home, { firstParty: await loadFirstPartyPlugins(), logger: createLogger({ level: 'error' }) });
    stored = Date.now();
    try {
      await writeRunFacts(opened.store, stored);
    } finally {
      await opened.close();
    }
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  const offline = async (...args: string[]) => {
    const result = await runCli(args, home);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return result.stdout;
  };

  it('deliveries show, list and usage read the store', async () => {
    expect(existsSync(join(home, 'gateway.run.json'))).toBe(false);
    expect(await offline('deliveries', 'show', 'facts-delivered')).toContain('  tokens: 1,200 in / 340 out (800 cached, 100 cache write)\n');
    expect(await offline('deliveries', 'show', 'facts-skipped')).toContain(`  outcome: skipped: ${SKIPPED_NOTE}\n`);
    expect(await offline('deliveries', 'show', 'facts-held')).toContain(`  waiting: ${heldNote(stored)}\n`);
    expect(await offline('deliveries', 'show', COALESCED_IDS[1])).toContain(
      `  coalesced: stands for 3 events: ${COALESCED_IDS.join(', ')}   key: hookwise#7\n`,
    );
    const list = await offline('deliveries', 'list', '--outcome', 'silent', '--wide');
    expect(list).toMatch(/^facts-silent\s+ci\s+push\s+done \(silent\)\s/m);
    expect(list.trim().split('\n')).toHaveLength(2);
    const usage = await offline('deliveries', 'usage');
    expect(usage).toMatch(/^ci\s+7\s+5\s+2\s+1\s+1\s+1\s+0\s+2\s+1,250\s+342\s+800\s+100\s+12\/20\s+3,400\/100,000$/m);
  });

  it("routes list reads the store's budget counters", async () => {
    expect(await offline('routes', 'list', '--wide')).toMatch(/^ci\s+static\s+active\s+.*\s12\/20\s+3,400\/100,000\s+http:/m);
  });
});

describe('a real `hookwise gateway run`: what its worker recorded, shown by the CLI', () => {
  let home: string;
  let gateway: GatewayProcess | undefined;
  afterAll(async () => {
    if (gateway) await stop(gateway, 'SIGKILL');
    rmSync(home, { recursive: true, force: true });
  });

  it('shows a silent answer, a delivered one and a run the budget skipped, and counts them per route', async () => {
    home = mkdtempSync(join(tmpdir(), 'hookwise-run-facts-gateway-'));
    // The stand-in agent answers the silent marker when the payload says "quiet".
    // The agent lives beside the config dir, never in it: the agent sandbox hides the config dir.
    const agent = `${home}.agent.js`;
    writeFileSync(
      agent,
      "let input = ''; process.stdin.on('data', (c) => (input += c)).on('end', () => process.stdout.write(input.includes('quiet') ? '[SILENT]' : 'answer for ' + input.trim()));",
    );
    writeFileSync(
      join(home, 'config.yaml'),
      [
        ...ciWebhookPlatform(['prompt: "event {__raw__}"', 'budget: { runs_per_hour: 2, when_exceeded: skip }']),
        'agent:',
        '  runner: command',
        `  command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(agent)}]`,
      ].join('\n'),
    );
    gateway = await startGateway(home);
    // One after the other: which run the budget refuses is then certain.
    expect((await post(gateway.url, 'real-quiet', { mode: 'quiet' })).status).toBe(202);
    await gateway.waitFor(/real-quiet on route 'ci' ended silent/);
    expect((await post(gateway.url, 'real-loud', { mode: 'loud' })).status).toBe(202);
    await gateway.waitFor(/delivered real-loud on route/);
    expect((await post(gateway.url, 'real-over', { mode: 'loud' })).status).toBe(202);
    await gateway.waitFor(/real-over on route 'ci': route budget runs_per_hour \(2\) spent/);

    const quiet = await runCli(['deliveries', 'show', 'real-quiet'], home);
    expect(quiet.stdout).toContain(`  outcome: ${SILENT_TEXT}\n`);
    expect(quiet.stdout).toContain('  note: the agent answered [SILENT]: nothing delivered\n');
    expect((await runCli(['deliveries', 'show', 'real-loud'], home)).stdout).toContain('  outcome: delivered\n');
    expect((await runCli(['deliveries', 'show', 'real-over'], home)).stdout).toContain(
      '  outcome: skipped: route budget runs_per_hour (2) spent; skipped without an agent run\n',
    );
    expect((await runCli(['routes', 'list', '--wide'], home)).stdout).toMatch(/^ci\s+static\s+active\s+.*\s2\/2\s+0\s+http:/m);
    expect((await runCli(['deliveries', 'usage'], home)).stdout).toMatch(/^ci\s+3\s+3\s+2\s+1\s+1\s+1\s+0\s+0\s/m);
  });
});
