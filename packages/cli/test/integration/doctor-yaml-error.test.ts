// `hookwise doctor` on a config.yaml that does not parse (issue 35 item 7): the yaml error's position and the lines
// around it are shown on lines of their own, and the fix names the line to correct instead of `gateway setup`,
// which refuses such a file.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempHome } from '../cli-process';

jest.setTimeout(60_000);

const BROKEN = ['platforms:', '  webhook:', '    enabled: true', '   extra:', '      port: 8644', ''].join('\n');

let dir: string;
beforeAll(() => {
  dir = tempHome();
  writeFileSync(join(dir, 'config.yaml'), BROKEN);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('doctor on a config that does not parse', () => {
  it('prints the position and an excerpt on several lines, and a fix that does not send the user to setup', async () => {
    const result = await runCli(['doctor'], dir);
    expect(result.code).toBe(1);
    const file = join(dir, 'config.yaml');
    // The table wraps its details at 120 columns: the words are read across the continuation lines.
    const words = result.stdout.replace(/\s+/g, ' ');
    expect(words).toContain(`${file} does not parse: All mapping items must start at the same column at line 4, column 1`);
    expect(words).toContain(`correct line 4 of ${file}`);
    expect(result.stdout).not.toMatch(/gateway setup writes a working one/);
    // The excerpt: the offending lines as written, then a caret under the column, each on a line of its own.
    expect(result.stdout).toMatch(/^config:\n {2} {4}enabled: true\n {2} {3}extra:\n {2}\^$/m);
  });

  it('carries the excerpt under --json', async () => {
    const result = await runCli(['doctor', '--json'], dir);
    const report = JSON.parse(result.stdout) as { checks: Array<{ check: string; excerpt?: string[]; fix?: string }> };
    const config = report.checks.find((c) => c.check === 'config');
    expect(config?.excerpt).toEqual(['    enabled: true', '   extra:', '^']);
  });

  it('is right that setup would not help: setup refuses the same file', async () => {
    const setup = await runCli(['gateway', 'setup', '--yes', '--secret', 'a-secret-that-is-long-enough-0123'], dir);
    expect(setup.code).not.toBe(0);
    expect(setup.stderr).toMatch(/does not parse/);
  });
});
