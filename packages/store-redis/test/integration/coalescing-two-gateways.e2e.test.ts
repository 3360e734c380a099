// Issue 23 on Redis with two real `hookwise gateway run` processes on one redis-server: events of one pull request
// posted alternately to both gateways inside the coalesce window make one agent run, with the latest payload, and
// every delivery id finds that job; jobs with one concurrency key never run at the same time across the gateways.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedisServer, type RunningRedis } from '@hookwise/testing';
import {
  agentDirOf,
  cli,
  postEvent,
  requireBuiltCli,
  sharedRedisConfig,
  startGatewayProcess,
  stopGatewayProcess,
  until,
  writeStandInAgent,
  type GatewayProcess,
} from '../gateway-processes';

requireBuiltCli();

/**
 * The stand-in agent: reads the prompt, sleeps 600 ms when it starts with "serial", and appends one JSON line per
 * run to RUNS_FILE: the prompt, its start and end (epoch ms), and its gateway's name.
 */
const AGENT = `
const fs = require('node:fs');
let prompt = '';
process.stdin.on('data', (c) => (prompt += c)).on('end', () => {
  const start = Date.now();
  setTimeout(() => {
    fs.appendFileSync(process.env.RUNS_FILE, JSON.stringify({ prompt: prompt.trim(), start, end: Date.now(), gateway: process.env.GATEWAY_NAME }) + '\\n');
    process.stdout.write('done');
  }, prompt.startsWith('serial') ? 600 : 0);
});
`;

interface Run {
  prompt: string;
  start: number;
  end: number;
  gateway: string;
}

const WINDOW_SECONDS = 3;

describe('coalescing and concurrency keys across two gateway processes on one redis-server (real binary)', () => {
  let redis: RunningRedis;
  let home: string;
  let runsFile: string;
  let a: GatewayProcess;
  let b: GatewayProcess;
  const runs = (): Run[] =>
    (existsSync(runsFile) ? readFileSync(runsFile, 'utf8') : '')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Run);
  const outputs = () => `--- gateway A:\n${a?.output()}\n--- gateway B:\n${b?.output()}\n--- runs:\n${JSON.stringify(runs())}`;

  beforeAll(async () => {
    redis = await startRedisServer();
    home = mkdtempSync(join(tmpdir(), 'hookwise-redis-coalescing-'));
    runsFile = join(agentDirOf(home), 'runs.jsonl');
    writeStandInAgent(home, AGENT);
    const routes = `      routes:
        prs:
          secret: INSECURE_NO_AUTH
          prompt: "review #{pull_request.number}: {pull_request.title}"
          coalesce: { key: "{pull_request.number}", window_seconds: ${WINDOW_SECONDS}, mode: latest }
        serial:
          secret: INSECURE_NO_AUTH
          prompt: "serial {step} of #{pull_request.number}"
          concurrency_key: "{pull_request.number}"`;
    writeFileSync(join(home, 'config.yaml'), sharedRedisConfig({ home, runsFile, redisUrl: redis.url, webhook: routes }));
    [a, b] = await Promise.all([startGatewayProcess(home, 'a'), startGatewayProcess(home, 'b')]);
  }, 45_000);

  afterAll(async () => {
    await Promise.all([a, b].map((g) => stopGatewayProcess(g, 'SIGTERM')));
    await redis?.stop();
  });

  it('makes one agent run, with the latest payload, of events for one pull request posted alternately to both gateways', async () => {
    const ids = ['pr5-push-1', 'pr5-push-2', 'pr5-push-3', 'pr5-push-4'];
    const answers = [];
    for (const [i, id] of ids.entries()) {
      answers.push(await postEvent(i % 2 ? b : a, 'prs', id, { action: 'synchronize', pull_request: { number: 5, title: `push ${i + 1}` } }));
    }
    expect(answers.map((r) => r.status)).toEqual([202, 202, 202, 202]);
    expect(answers.map((r) => r.body.coalesced === true)).toEqual([false, true, true, true]);
    // A redelivery of a merged event, to either gateway, is a duplicate.
    expect((await postEvent(a, 'prs', 'pr5-push-2', { pull_request: { number: 5, title: 'again' } })).body).toMatchObject({ status: 'duplicate' });

    await until(
      () => runs().some((r) => r.prompt.startsWith('review #5')),
      () => `the coalesced run\n${outputs()}`,
      (WINDOW_SECONDS + 15) * 1000,
    );
    const shown = await cli(home, ['deliveries', 'show', 'pr5-push-1', '--json']);
    expect(shown.code).toBe(0);
    const job = JSON.parse(shown.stdout) as { id: string; status: string; coalesced: { deliveryIds: string[] } };
    expect(job.coalesced.deliveryIds).toEqual(ids);
    for (const id of ids.slice(1)) {
      const other = await cli(home, ['deliveries', 'show', id, '--json']);
      expect((JSON.parse(other.stdout) as { id: string }).id).toBe(job.id);
    }
    expect(runs().filter((r) => r.prompt.startsWith('review #5'))).toEqual([expect.objectContaining({ prompt: 'review #5: push 4' })]);
  }, 60_000);

  it('never runs two jobs of one concurrency key at the same time, across both gateways', async () => {
    const steps = [1, 2, 3, 4];
    const answers = await Promise.all(steps.map((step) => postEvent(step % 2 ? a : b, 'serial', `pr8-step-${step}`, { step, pull_request: { number: 8 } })));
    expect(answers.map((r) => r.status)).toEqual([202, 202, 202, 202]);
    // Another key runs alongside: the lock is per key, not per route.
    expect((await postEvent(a, 'serial', 'pr9-step-1', { step: 1, pull_request: { number: 9 } })).status).toBe(202);
    await until(
      () => runs().filter((r) => r.prompt.endsWith('of #8')).length === steps.length && runs().some((r) => r.prompt.endsWith('of #9')),
      () => `the serial runs\n${outputs()}`,
      30_000,
    );
    const serial = runs()
      .filter((r) => r.prompt.endsWith('of #8'))
      .sort((x, y) => x.start - y.start);
    for (let i = 1; i < serial.length; i += 1) expect(serial[i]!.start).toBeGreaterThanOrEqual(serial[i - 1]!.end);
    expect(new Set(serial.map((r) => r.prompt)).size).toBe(steps.length);
  }, 60_000);
});
