// `hookwise routes try` through the built binary on a SQLite config dir whose events a real `gateway run` answered
// (echo agent, delivered to a recording stand-in of a Slack incoming webhook): a new prompt shows old and new
// answers side by side, a stricter filter says which events it would drop, --json has the trial's shape,
// --max-tokens stops a trial whose runs (the openai runner against a local Chat Completions stand-in reporting
// usage) pass it, nothing reaches the destination, and the trial is kept for `trials list|show`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRecordingServer, type RecordingServer } from '@hookwise/testing';
import { runCli, tempHome } from '../cli-process';
import { answeredTrialHome, TRIAL_TITLES } from '../trial-home';

jest.setTimeout(120_000);

const TITLES = TRIAL_TITLES;
let home: string;
let destination: RecordingServer;
let model: RecordingServer;

beforeAll(async () => {
  destination = await startRecordingServer(() => ({ status: 200, body: 'ok' }));
  // A Chat Completions stand-in: every answer reports 100 tokens.
  model = await startRecordingServer(() => ({
    json: {
      id: 'c1',
      object: 'chat.completion',
      model: 'stand-in',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'model says hi' } }],
      usage: { prompt_tokens: 60, completion_tokens: 40, total_tokens: 100 },
    },
  }));
  home = await answeredTrialHome(destination, 'hookwise-trial-', 'trial');
});

afterAll(async () => {
  await destination?.close();
  await model?.close();
});

const cli = async (...args: string[]) => {
  const result = await runCli(args, home, { COLUMNS: '160' });
  if (result.code !== 0) throw new Error(`hookwise ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result.stdout;
};

interface Trial {
  id: string;
  route: string;
  change: Record<string, unknown>;
  stopped?: { reason: string; notRun: string[] };
  events: Array<{ deliveryId: string; change: string; old: { answer?: string; filter: string }; new: { answer?: string; filter: string; tokens?: number } }>;
  totals: { events: number; runs: number; tokens: { old: number; new: number }; filteredOutNow: number };
}

describe('hookwise routes try', () => {
  it('runs a new prompt on the stored events and prints the old and new answers side by side; nothing is delivered', async () => {
    const out = await cli('routes', 'try', 'ci', '--prompt', 'new {n}: {title}');
    for (const [i, title] of TITLES.entries()) {
      const line = out.split('\n').find((l) => l.includes(`old ${i + 1}: ${title}`));
      expect(line).toBeDefined();
      // The same line holds the new answer in the right-hand column.
      expect(line).toMatch(new RegExp(`old ${i + 1}: ${title}\\s+│ new ${i + 1}: ${title}$`));
    }
    expect(out).toMatch(/OLD: answer · - tokens · - · done\/delivered\s+│ NEW: answer · - tokens · \d+\.\ds/);
    expect(out).toContain('answer changed');
    expect(out).toMatch(/Trial t-\S+ on route 'ci': 3 events, 3 runs, silent 0% before \/ 0% now/);
    expect(out).toContain('Nothing was delivered.');
    expect(destination.requests).toHaveLength(TITLES.length);
    // The stored job keeps its own answer: the trial's went to the trial, not the store.
    const stored = JSON.parse(await cli('deliveries', 'show', 'trial-1', '--json')) as { answer: string; status: string };
    expect(stored).toMatchObject({ answer: 'old 1: keep this', status: 'done' });
  });

  it('--filter says which events the candidate filter would drop, and runs only the others', async () => {
    const trial = JSON.parse(await cli('routes', 'try', 'ci', '--filter', 'title~=^keep', '--json')) as Trial;
    const byId = Object.fromEntries(trial.events.map((e) => [e.deliveryId, e]));
    expect(byId['trial-2']).toMatchObject({ change: 'filtered-out-now', old: { filter: 'passed', answer: 'old 2: drop that' }, new: { filter: 'filtered' } });
    expect(byId['trial-1']).toMatchObject({ change: 'same', new: { filter: 'passed', answer: 'old 1: keep this' } });
    expect(trial.totals).toMatchObject({ events: 3, runs: 2, filteredOutNow: 1 });
    const text = await cli('routes', 'try', 'ci', '--filter', 'title~=^keep', '--ids', 'trial-2');
    expect(text).toContain('filtered out now');
    expect(text).toContain('NEW: filtered out');
    expect(destination.requests).toHaveLength(TITLES.length);
  });

  it('--json prints the trial: its id, change, events with both sides, and totals', async () => {
    const trial = JSON.parse(await cli('routes', 'try', 'ci', '--prompt', 'json {n}', '--last', '2', '--json')) as Trial;
    expect(trial).toMatchObject({ route: 'ci', change: { prompt: 'json {n}' }, totals: { events: 2, runs: 2 } });
    expect(trial.id).toMatch(/^t-\d{8}-\d{6}-[0-9a-f]{4}$/);
    // Newest first: the last two events posted.
    expect(trial.events.map((e) => [e.deliveryId, e.old.answer, e.new.answer])).toEqual([
      ['trial-3', 'old 3: keep too', 'json 3'],
      ['trial-2', 'old 2: drop that', 'json 2'],
    ]);
  });

  it('--max-tokens stops the trial once its runs used more, keeping what finished', async () => {
    const agentFile = join(tempHome('hookwise-trial-agent-'), 'openai-agent.yaml');
    writeFileSync(agentFile, `runner: openai\nbase_url: ${model.url}/v1\nmodel: stand-in\napi_key_env: TRIAL_TEST_NO_KEY\n`);
    const before = model.requests.length;
    // The sums over the last 24h, without the moving start of the period.
    const usage = async (): Promise<unknown> => ({ ...(JSON.parse(await cli('deliveries', 'usage', '--json')) as object), since: undefined });
    const usageBefore = await usage();
    const trial = JSON.parse(await cli('routes', 'try', 'ci', '--agent-file', agentFile, '--max-tokens', '150', '--concurrency', '1', '--json')) as Trial;
    // Trial usage is the trial's own: its tokens are in the trial record, the route's sums and budgets never see them.
    expect(await usage()).toEqual(usageBefore);
    expect(JSON.stringify(usageBefore)).not.toContain('"inputTokens":60');
    expect(JSON.stringify(usageBefore)).toContain('"jobsRead":3');
    expect(model.requests.length - before).toBe(2);
    expect(trial.events).toHaveLength(2);
    expect(trial.events[0].new).toMatchObject({ answer: 'model says hi', tokens: 100 });
    expect(trial.totals.tokens.new).toBe(200);
    expect(trial.stopped).toEqual({ reason: expect.stringContaining('--max-tokens 150'), notRun: ['trial-1'] });
    expect(destination.requests).toHaveLength(TITLES.length);
  });

  it('keeps every trial: trials list and trials show read them back', async () => {
    const list = JSON.parse(await cli('trials', 'list', '--json')) as Array<{ id: string; route: string }>;
    expect(list.length).toBeGreaterThanOrEqual(4);
    expect(list.every((t) => t.route === 'ci')).toBe(true);
    const shown = await cli('trials', 'show', list[list.length - 1].id);
    expect(shown).toContain(`Trial ${list[list.length - 1].id} of route 'ci'`);
    expect(shown).toMatch(/old 1: keep this\s+│ new 1: keep this/);
    const table = await cli('trials', 'list');
    expect(table).toMatch(/^ID\s+ROUTE\s+CREATED\s+CHANGE\s+EVENTS\s+RUNS\s+CHANGED\s+FILTERED OUT\s+TOKENS$/m);
  });

  it('says what is wrong with an unknown route, a change-less trial and a bad --since', async () => {
    const unknown = await runCli(['routes', 'try', 'nope', '--prompt', 'x'], home);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no route 'nope' in config.yaml or the subscriptions: routes are ci");
    const nothing = await runCli(['routes', 'try', 'ci'], home);
    expect(nothing.stderr).toContain('nothing to try: give a change');
    const since = await runCli(['routes', 'try', 'ci', '--prompt', 'x', '--since', 'yesterday'], home);
    expect(since.stderr).toContain('--since must be a duration back from now');
  });
});
