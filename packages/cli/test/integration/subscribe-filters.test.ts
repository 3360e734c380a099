// `hookwise webhook subscribe --filter ...` and the other flags of docs/filters.md, with the real binary: what the
// subscriptions file holds, the errors for bad values, and a running gateway filtering with what the CLI wrote.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '@hookwise/server';
import { distributionOptions } from '../../src/distribution';
import { githubFixture } from '@hookwise/testing';
import { logCapture, postSigned, runCli, tempHome, writeConfig } from '../cli-process';

// Each test starts real processes; on a loaded machine they are slow, so allow more than jest's default.
jest.setTimeout(120_000);

const OPENED = githubFixture('pull_request.opened').toString('utf8');
const LABELED = JSON.stringify({ ...JSON.parse(OPENED), action: 'labeled', label: { name: 'bug' } });

let home: string;
let running: RunningGateway;
let logs: string[];

beforeAll(async () => {
  home = tempHome();
  writeConfig(home, 0);
  const capture = logCapture();
  logs = capture.lines;
  running = await startGateway({ ...(await distributionOptions()), configDir: home, logStream: capture.stream, pollMs: 20 });
  writeConfig(home, running.port);
});

afterAll(async () => {
  await running?.close(1000);
  rmSync(home, { recursive: true, force: true });
});

const entryOf = (name: string) => (JSON.parse(readFileSync(join(home, 'webhook_subscriptions.json'), 'utf8')) as Record<string, Record<string, unknown>>)[name];

describe('hookwise webhook subscribe --filter', () => {
  it('stores the filter in the config form, and the running gateway ignores a labeled pull request while it runs the opened one', async () => {
    const result = await runCli(
      ['webhook', 'subscribe', 'prs', '--events', 'pull_request', '--filter', 'action=opened|synchronize', '--filter', 'pull_request.draft=false', '--json'],
      home,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as { url: string; secret: string; filter: unknown };
    expect(entryOf('prs').filter).toEqual([
      { path: 'action', in: ['opened', 'synchronize'] },
      { path: 'pull_request.draft', equals: false },
    ]);
    expect(out.filter).toEqual(entryOf('prs').filter);

    const github = (body: string, delivery: string) =>
      postSigned(out.url, out.secret, body, { 'x-github-event': 'pull_request', 'x-github-delivery': delivery });
    expect(await github(LABELED, 'cli-labeled')).toEqual({ status: 200, body: { status: 'ignored', event: 'pull_request', reason: 'filter' } });
    expect(logs.join('\n')).toContain(`filtered out by route 'prs': action is "labeled", not one of "opened", "synchronize"`);
    expect((await github(OPENED, 'cli-opened')).status).toBe(202);

    // `webhook test` tells a filtered event from an event-type miss.
    const tested = await runCli(['webhook', 'test', 'prs', '--payload', '{"action":"labeled","pull_request":{"draft":false}}'], home);
    expect(tested.code).toBe(0);
    expect(tested.stdout).toContain('HTTP 200');
    expect(tested.stdout).toContain("The payload failed the route's filter: the gateway log names the test that failed");
  });

  it('reads each form of the grammar: one of, none of, not equal, regex, present, missing, JSON scalars and expressions', async () => {
    const result = await runCli(
      [
        'webhook',
        'subscribe',
        'grammar',
        '--filter',
        'action!=closed|locked',
        '--filter',
        'sender.type!=Bot',
        '--filter',
        'ref~=^refs/heads/(main|release/.*)$',
        '--filter',
        'pull_request?',
        '--filter',
        '!pull_request.merged_at?',
        '--filter',
        'number=2',
        '--filter',
        'pull_request.title="42"',
        '--filter',
        'pull_request.body=null',
        '--filter-expression',
        "'needs-review' in pull_request.labels.name",
      ],
      home,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `Filter:   action!=closed|locked and sender.type!=Bot and ref~=^refs/heads/(main|release/.*)$ and pull_request? and !pull_request.merged_at? and number=2 and pull_request.title="42" and pull_request.body=null and expression "'needs-review' in pull_request.labels.name"`,
    );
    expect(entryOf('grammar').filter).toEqual([
      { path: 'action', not_in: ['closed', 'locked'] },
      { path: 'sender.type', not_equals: 'Bot' },
      { path: 'ref', matches: '^refs/heads/(main|release/.*)$' },
      { path: 'pull_request', exists: true },
      { path: 'pull_request.merged_at', exists: false },
      { path: 'number', equals: 2 },
      { path: 'pull_request.title', equals: '42' },
      { path: 'pull_request.body', equals: null },
      { expression: "'needs-review' in pull_request.labels.name" },
    ]);
  });

  it('stores coalescing, the concurrency key, the budget, the silent marker and deliver none; empty values remove them', async () => {
    const set = await runCli(
      [
        'webhook',
        'subscribe',
        'agentic',
        '--coalesce-key',
        '{repository.full_name}#{pull_request.number}',
        '--coalesce-window',
        '90',
        '--coalesce-mode',
        'all',
        '--concurrency-key',
        '{repository.full_name}',
        '--runs-per-hour',
        '20',
        '--tokens-per-day',
        '500000',
        '--when-over-budget',
        'skip',
        '--silent-marker',
        '[NOTHING]',
        '--deliver',
        'none',
      ],
      home,
    );
    expect(set.stderr).toBe('');
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('Deliver:  none (the agent acts through its tools; nothing is delivered)');
    expect(set.stdout).toContain('Budget:   20 runs/hour, 500000 tokens/day; over it: skip');
    expect(entryOf('agentic')).toMatchObject({
      deliver: 'none',
      coalesce: { key: '{repository.full_name}#{pull_request.number}', window_seconds: 90, mode: 'all' },
      concurrency_key: '{repository.full_name}',
      budget: { runs_per_hour: 20, tokens_per_day: 500000, when_exceeded: 'skip' },
      silent_marker: '[NOTHING]',
    });

    // Only the window changes; then everything is removed again.
    expect((await runCli(['webhook', 'subscribe', 'agentic', '--coalesce-window', '30', '--runs-per-hour', '0'], home)).code).toBe(0);
    expect(entryOf('agentic')).toMatchObject({ coalesce: { window_seconds: 30, mode: 'all' }, budget: { tokens_per_day: 500000, when_exceeded: 'skip' } });
    expect(entryOf('agentic').budget).not.toHaveProperty('runs_per_hour');
    const cleared = await runCli(
      ['webhook', 'subscribe', 'agentic', '--coalesce-key', '', '--concurrency-key', '', '--tokens-per-day', '0', '--silent-marker', '', '--filter', ''],
      home,
    );
    expect(cleared.code).toBe(0);
    for (const key of ['coalesce', 'concurrency_key', 'budget', 'silent_marker', 'filter']) expect(entryOf('agentic')).not.toHaveProperty(key);
  });

  it('refuses bad values, saying what is wrong with an example, and writes nothing', async () => {
    const before = readFileSync(join(home, 'webhook_subscriptions.json'), 'utf8');
    const cases: Array<[string[], RegExp]> = [
      [['--filter', 'action'], /--filter expects one of path=value, .*; got 'action' \(e\.g\. --filter 'action=opened\|synchronize'/],
      [['--filter', 'ref~=^(heads'], /--filter 'ref~=\^\(heads': Invalid regular expression: .*e\.g\. --filter 'ref~=/],
      [['--filter', 'a b=c'], /'a b' is not a dot path into the payload/],
      [
        ['--filter-expression', "action = 'opened' and ("],
        /route 'bad' filter\[0\]: the JSONata expression "action = 'opened' and \(" does not parse at position 23/,
      ],
      [['--coalesce-key', '{x}'], /coalescing needs a key and a window: add --coalesce-window \(e\.g\. --coalesce-key/],
      [['--coalesce-key', '{x}', '--coalesce-window', 'soon'], /--coalesce-window takes seconds, more than 0; got 'soon'/],
      [
        ['--coalesce-key', '{x}', '--coalesce-window', '5', '--coalesce-mode', 'first'],
        /--coalesce-mode takes latest or all; got 'first' \(e\.g\. --coalesce-mode latest\)/,
      ],
      [['--runs-per-hour', 'many'], /--runs-per-hour takes a whole number \(0 removes the limit\); got 'many' \(e\.g\. --runs-per-hour 20\)/],
      [['--when-over-budget', 'skip'], /--when-over-budget needs a limit: add --runs-per-hour or --tokens-per-day/],
    ];
    const results = await Promise.all(cases.map(([flags]) => runCli(['webhook', 'subscribe', 'bad', ...flags], home)));
    results.forEach((result, i) => {
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(cases[i][1]);
    });
    expect(readFileSync(join(home, 'webhook_subscriptions.json'), 'utf8')).toBe(before);
  });
});

describe('hookwise doctor', () => {
  it('fails a config route whose filter does not compile, naming the route, the expression with its position, and the regex', async () => {
    const broken = tempHome();
    try {
      writeConfig(
        broken,
        0,
        '      secret: a-long-enough-secret-for-the-policy\n      routes:\n        prs:\n          filter:\n            - expression: "action = (("\n            - { path: ref, matches: "^(x" }\n',
      );
      const result = await runCli(['doctor', '--wide'], broken);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/FAIL\s+route 'prs'\s+route 'prs' filter\[0\]: the JSONata expression "action = \(\(" does not parse at position 11/);
      expect(result.stdout).toContain(`route 'prs' filter[1]: the regular expression "^(x" is invalid`);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });
});
