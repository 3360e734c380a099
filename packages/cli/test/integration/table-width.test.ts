// Output that fits 120 columns (issue 35 item 9): `routes list` and `doctor` were 174 and 253 columns wide,
// `deliveries list` 200. Tables are fitted to 120 columns (long cells shortened with …, ids and URLs whole,
// doctor's details wrapped so the fix stays readable); --wide shows every cell whole on one line.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderTable, TABLE_WIDTH } from '../../src/text-table';
import { runCli, tempHome } from '../cli-process';

jest.setTimeout(120_000);

const homes: string[] = [];
afterAll(() => {
  for (const dir of homes) rmSync(dir, { recursive: true, force: true });
});

const EVENTS = Array.from({ length: 12 }, (_, i) => `pull_request_review_comment_${i}`);
const LONG_NAME = 'pull-request-reviews';

function longestLine(text: string): number {
  return Math.max(...text.split('\n').map((line) => line.length));
}

async function wideConfig(): Promise<string> {
  const dir = tempHome();
  homes.push(dir);
  writeFileSync(
    join(dir, 'config.yaml'),
    [
      'platforms:',
      '  webhook:',
      '    enabled: true',
      '    extra:',
      '      host: 127.0.0.1',
      '      port: 0',
      '      secret: table-width-secret-0123456789abcdef',
      '      routes:',
      `        ${LONG_NAME}:`,
      `          events: [${EVENTS.join(', ')}]`,
      '          deliver: [log, none]',
      '          skills: [a-skill-that-does-not-exist-anywhere-at-all, another-skill-that-is-missing-as-well]',
      'store:',
      '  backend: memory',
      '',
    ].join('\n'),
  );
  return dir;
}

describe('tables fit 120 columns', () => {
  it('routes list fits, keeps the name and URL whole, and --wide shows the events whole', async () => {
    const dir = await wideConfig();
    const fitted = await runCli(['routes', 'list'], dir);
    expect(fitted.code).toBe(0);
    expect(longestLine(fitted.stdout)).toBeLessThanOrEqual(TABLE_WIDTH);
    expect(fitted.stdout).toContain(LONG_NAME);
    expect(fitted.stdout).toContain(`/webhooks/${LONG_NAME}`);
    expect(fitted.stdout).toContain('…');
    const wide = await runCli(['routes', 'list', '--wide'], dir);
    expect(wide.stdout).toContain(EVENTS.join(','));
    expect(longestLine(wide.stdout)).toBeGreaterThan(TABLE_WIDTH);
  });

  it('doctor fits by wrapping its details (nothing is cut, the fix stays whole); --wide keeps one line per check', async () => {
    const dir = await wideConfig();
    const fitted = await runCli(['doctor'], dir);
    expect(longestLine(fitted.stdout)).toBeLessThanOrEqual(TABLE_WIDTH);
    // The unknown skill's message, with its path, is on the continuation lines: the words are all there.
    const words = fitted.stdout.replace(/\s+/g, ' ');
    expect(words).toContain("unknown skill 'a-skill-that-does-not-exist-anywhere-at-all'");
    const wide = await runCli(['doctor', '--wide'], dir);
    expect(wide.stdout).toMatch(new RegExp(`^FAIL\\s+route '${LONG_NAME}'\\s+.*unknown skill .*another-skill-that-is-missing-as-well`, 'm'));
  });

  it('webhook list, skills list and plugins list fit too, and take --wide like the other tables', async () => {
    const dir = await wideConfig();
    const description = `Reviews every pull request of the monorepo ${'and says what it thinks of it '.repeat(5)}end`;
    const subscribed = await runCli(['webhook', 'subscribe', 'long-description', '--events', EVENTS.slice(0, 4).join(','), '--description', description], dir);
    expect(subscribed.code).toBe(0);
    const fitted = await runCli(['webhook', 'list'], dir);
    expect(fitted.code).toBe(0);
    expect(longestLine(fitted.stdout)).toBeLessThanOrEqual(TABLE_WIDTH);
    expect(fitted.stdout).toContain('/webhooks/long-description');
    const wide = await runCli(['webhook', 'list', '--wide'], dir);
    expect(wide.code).toBe(0);
    expect(wide.stdout).toContain(description);

    mkdirSync(join(dir, 'skills', 'long-skill'), { recursive: true });
    const skill = `Checks ${'one more thing about the change '.repeat(6)}and stops`;
    writeFileSync(join(dir, 'skills', 'long-skill', 'SKILL.md'), `---\nname: long-skill\ndescription: ${skill}\n---\n\nDo it.\n`);
    const skills = await runCli(['skills', 'list'], dir);
    expect(longestLine(skills.stdout)).toBeLessThanOrEqual(TABLE_WIDTH);
    expect((await runCli(['skills', 'list', '--wide'], dir)).stdout).toContain(skill);

    const plugins = await runCli(['plugins', 'list'], dir);
    expect(longestLine(plugins.stdout)).toBeLessThanOrEqual(TABLE_WIDTH);
    const widePlugins = await runCli(['plugins', 'list', '--wide'], dir);
    expect(widePlugins.code).toBe(0);
    expect(widePlugins.stdout).not.toContain('…');
  });

  it("deliveries list's columns: a long error is shortened, the delivery id and the time never", () => {
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const row = [id, 'github-prs', 'pull_request', 'dead', 'deliver', '5', '1', '-', '2026-11-26 00:00:00Z', `telegram: ${'refused '.repeat(20)}`];
    const headers = ['DELIVERY ID', 'ROUTE', 'EVENT', 'STATUS', 'STEP', 'ATTEMPTS', 'EVENTS', 'TOKENS', 'RECEIVED', 'LAST ERROR / NOTE'];
    // As deliveries list asks: the id and the time whole, coalesced events, tokens and the step dropped first.
    const fitted = renderTable(headers, [row], { whole: [0, 8], drop: [7, 6, 4] });
    expect(longestLine(fitted)).toBeLessThanOrEqual(TABLE_WIDTH);
    expect(fitted).toContain(`${id}  github-prs`);
    expect(fitted).toContain('2026-11-26 00:00:00Z  telegram: refuse…');
    expect(fitted.split('\n')[0]).toMatch(/^DELIVERY ID\s+ROUTE\s+EVENT\s+STATUS\s+ATTEMPTS\s+RECEIVED\s+LAST ERROR \/ NOTE$/);
    // A narrow table keeps every column.
    expect(renderTable(headers, [row.map((v) => v.slice(0, 6))], { whole: [0, 8], drop: [7, 6, 4] }).split('\n')[0]).toMatch(
      /\sSTEP\s+ATTEMPTS\s+EVENTS\s+TOKENS\s/,
    );
    const wide = renderTable(headers, [row], { whole: [0, 8], drop: [7, 6, 4], wide: true });
    expect(wide.split('\n')[0]).toMatch(/\sSTEP\s+ATTEMPTS\s+EVENTS\s+TOKENS\s/);
    expect(wide).toContain(row[9].trim());
  });
});
