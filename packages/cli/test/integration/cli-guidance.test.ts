// The real `hookwise` binary when a person gets something wrong: a mistyped command or flag gets a suggestion,
// `help <topic>` works, --json errors are a small {"error": {...}} without oclif's internals, and a clone that was
// never built says so.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_BIN, runCli, tempHome } from '../cli-process';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

jest.setTimeout(120_000);

let home: string;
beforeAll(() => {
  home = tempHome();
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** oclif writes errors with a "›" margin; the assertions read the words. */
const plain = (text: string) => text.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' ');

describe('did you mean', () => {
  it('suggests the topic for a mistyped one (`webhok`), exit 2', async () => {
    const result = await runCli(['webhok'], home);
    expect(result.code).toBe(2);
    expect(plain(result.stderr)).toContain("'webhok' is not a hookwise command. Did you mean `hookwise webhook`?");
  });

  it('suggests the whole command for `webhok lst`', async () => {
    const result = await runCli(['webhok', 'lst'], home);
    expect(result.code).toBe(2);
    expect(plain(result.stderr)).toContain('Did you mean `hookwise webhook list`?');
  });

  it('`help webhook` shows the topic help; `help webhok` suggests `help webhook`', async () => {
    const help = await runCli(['help', 'webhook'], home);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Manage dynamic webhook subscriptions');
    expect(help.stdout).toContain('webhook subscribe');
    const typo = await runCli(['help', 'webhok'], home);
    expect(typo.code).toBe(2);
    expect(plain(typo.stderr)).toContain('Did you mean `hookwise help webhook`?');
  });

  it('`--event` on `webhook subscribe` suggests --events', async () => {
    const result = await runCli(['webhook', 'subscribe', 'ci', '--event', 'push'], home);
    expect(result.code).not.toBe(0);
    expect(plain(result.stderr)).toContain('Nonexistent flag: --event (did you mean --events?)');
  });
});

describe('--json errors', () => {
  it('a mistyped flag: {"error": {"message"}} on stdout, no oclif internals, non-zero exit', async () => {
    const result = await runCli(['webhook', 'subscribe', 'ci', '--event', 'push', '--json'], home);
    expect(result.code).not.toBe(0);
    const json = JSON.parse(result.stdout) as { error: Record<string, unknown> };
    expect(Object.keys(json)).toEqual(['error']);
    expect(json.error.message).toContain('Nonexistent flag: --event (did you mean --events?)');
    expect(result.stdout).not.toContain('oclif');
    expect(result.stdout).not.toContain('"parse"');
  });

  it('an error with a Hookwise code carries it: deliveries show of an unknown id', async () => {
    writeFileSync(join(home, 'config.yaml'), 'platforms:\n  webhook:\n    enabled: true\n');
    const result = await runCli(['deliveries', 'show', 'no-such-delivery', '--json'], home);
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as { error: { message: string; code: string } };
    expect(json).toEqual({
      error: {
        message: expect.stringContaining("no delivery 'no-such-delivery' in the store"),
        code: 'HW_E_STORE',
        config_dir: home,
        config_dir_from: '$HOOKWISE_HOME',
      },
    });
  });

  it('a config that does not validate lists every problem', async () => {
    const dir = tempHome();
    try {
      writeFileSync(join(dir, 'config.yaml'), 'platforms:\n  webhook:\n    enabled: true\n    extra:\n      port: nope\n      rate_limit: many\n');
      const result = await runCli(['routes', 'list', '--json'], dir);
      expect(result.code).toBe(1);
      const json = JSON.parse(result.stdout) as { error: { message: string; code?: string; problems?: string[] } };
      expect(json.error.problems).toEqual(
        expect.arrayContaining([expect.stringContaining('platforms.webhook.extra.port'), expect.stringContaining('platforms.webhook.extra.rate_limit')]),
      );
      expect(result.stdout).not.toContain('oclif');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a clone that was never built', () => {
  it('says "not built" and what to run instead of "command gateway:run not found"', async () => {
    // bin/run.js beside a package.json but no dist/: as after `npm ci --ignore-scripts` or a failed build.
    const fake = mkdtempSync(join(tmpdir(), 'hookwise-unbuilt-'));
    try {
      mkdirSync(join(fake, 'bin'));
      copyFileSync(CLI_BIN, join(fake, 'bin', 'run.js'));
      copyFileSync(join(TEST_DIR, '..', 'package.json'), join(fake, 'package.json'));
      const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
        const child = execFile(process.execPath, [join(fake, 'bin', 'run.js'), 'gateway', 'run'], { timeout: 30_000 }, (err, _stdout, stderr) =>
          resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr: String(stderr) }),
        );
        child.stdin?.end();
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('hookwise is not built');
      expect(result.stderr).toContain('Run `npm run build`');
      expect(result.stderr).not.toContain('not found');
    } finally {
      rmSync(fake, { recursive: true, force: true });
    }
  });
});
