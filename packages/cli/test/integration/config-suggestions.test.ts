// Config typos get a suggestion: an unknown key ("agnet" -> agent), an unknown destination ("telegarm" -> telegram),
// `none` among the destinations named, and `enabled: yes` is told to use true or false.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@hookwise/gateway';
import { closestMatch, isHookwiseConfigError } from '@hookwise/core';
import { runCli } from '../cli-process';

jest.setTimeout(60_000);

const dirs: string[] = [];
function configDir(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'hookwise-suggest-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'config.yaml'), yaml);
  return dir;
}
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function problemsOf(yaml: string): string[] {
  try {
    loadConfig({ configDir: configDir(yaml), env: {} });
  } catch (err) {
    if (isHookwiseConfigError(err)) return err.problems;
    throw err;
  }
  return [];
}

const route = (lines: string) =>
  `platforms:\n  webhook:\n    enabled: true\n    extra:\n      host: 127.0.0.1\n      port: 0\n      routes:\n        ci:\n          secret: abcdefghijklmnop\n${lines}`;

describe('config typos', () => {
  it('an unknown key suggests the known one, at the top and inside a route', () => {
    expect(problemsOf('agnet:\n  runner: echo\n')).toEqual(["(root): unknown key 'agnet' (did you mean 'agent'?)"]);
    expect(problemsOf(route('          promt: hi\n'))).toEqual(["platforms.webhook.extra.routes.ci: unknown key 'promt' (did you mean 'prompt'?)"]);
    // Nothing close: no guess.
    expect(problemsOf('zzzzzz: 1\n')).toEqual(["(root): unknown key 'zzzzzz'"]);
  });

  it('enabled: yes is told to use true or false', () => {
    expect(problemsOf(route('          enabled: yes\n'))).toEqual(['platforms.webhook.extra.routes.ci.enabled: must be boolean: use true or false']);
  });

  it('an unknown destination suggests the deliverer and lists none', async () => {
    const result = await runCli(['gateway', 'run'], configDir(route('          deliver: telegarm\n')));
    expect(result.code).not.toBe(0);
    const text = result.stderr.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' ');
    expect(text).toContain("unknown deliver type 'telegarm' (did you mean 'telegram'?); known: none, ");
    expect(closestMatch('nnoe', ['none', 'log'])).toBe('none');
  });
});
