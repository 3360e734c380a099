// The pr-review example's sample payload (samples/pr-review.json, what `hookwise webhook test pr-review` sends):
// it fills every placeholder of the route's prompt, as sent and after the route's transform, passes the route's
// filter, and the README's copy step keeps it in the config dir it makes.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsonata from 'jsonata';
import { parse } from 'yaml';
import { unresolvedInPayload } from '../../../../packages/cli/src/unresolved-placeholders';

const EXAMPLE_DIR = join(__dirname, '..', '..');
const ROOT = join(EXAMPLE_DIR, '..', '..');

interface RouteYaml {
  transform: { expression: string };
  prompt: string;
  filter: Array<{ path: string; in?: unknown[]; equals?: unknown }>;
}
const config = parse(readFileSync(join(EXAMPLE_DIR, 'config.yaml'), 'utf8')) as { platforms: { webhook: { extra: { routes: { 'pr-review': RouteYaml } } } } };
const route = config.platforms.webhook.extra.routes['pr-review'];
const sample = JSON.parse(readFileSync(join(EXAMPLE_DIR, 'samples', 'pr-review.json'), 'utf8')) as Record<string, unknown>;
const at = (payload: unknown, path: string) => path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], payload);

it("fills every placeholder of the route's prompt, as sent and after the transform, and passes the filter", async () => {
  expect(unresolvedInPayload(route.prompt, sample)).toEqual([]);
  const slim = (await jsonata(route.transform.expression).evaluate(sample)) as Record<string, unknown>;
  expect(unresolvedInPayload(route.prompt, slim)).toEqual([]);
  for (const test of route.filter) {
    if (test.in) expect(test.in).toContain(at(slim, test.path));
    if ('equals' in test) expect(at(slim, test.path)).toBe(test.equals);
  }
});

it("the README's copy step keeps the sample payloads and leaves the test suite behind", () => {
  const readme = readFileSync(join(EXAMPLE_DIR, 'README.md'), 'utf8');
  const step = readme.split('\n').find((line) => line.startsWith('mkdir -p "$HOOKWISE_HOME" && cp -r examples/pr-review/.'));
  expect(step).toBeDefined();
  const home = mkdtempSync(join(tmpdir(), 'hookwise-pr-review-copy-'));
  try {
    execFileSync('bash', ['-c', step!], { cwd: ROOT, env: { ...process.env, HOOKWISE_HOME: home } });
    expect(JSON.parse(readFileSync(join(home, 'samples', 'pr-review.json'), 'utf8'))).toEqual(sample);
    expect(existsSync(join(home, 'config.yaml'))).toBe(true);
    expect(existsSync(join(home, 'test'))).toBe(false);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
