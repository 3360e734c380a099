// docs/filters.md shows configs people copy: every ```yaml block must validate against the config schema and pass
// the checks the gateway makes at startup (filters compile, key templates are usable). A block that is not a
// whole config is a route's keys.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { validateConfigObject } from '../../src/config/load';
import { filterProblems } from '../../src/filters/filters';
import { closeInFileLists } from '../../src/filters/filter-tests';
import { routeKeyProblems } from '../../src/ingest/route-keys';
import { staticRoutes } from '../../src/routes/routes';

const DOC = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'filters.md'), 'utf8');
const blocks = [...DOC.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1]);

// The lists the examples name with in_file, in a config dir of their own.
const configDir = mkdtempSync(join(tmpdir(), 'hookwise-filters-doc-'));
for (const [, file] of DOC.matchAll(/in_file: ([\w.-]+)/g)) writeFileSync(join(configDir, file), 'octocat\n');
afterAll(() => {
  closeInFileLists();
  rmSync(configDir, { recursive: true, force: true });
});

describe('docs/filters.md', () => {
  it('has yaml examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(6);
  });

  it.each(blocks.map((text, i) => [i + 1, text]))('yaml block %i is a config the gateway accepts', (_n, text) => {
    const parsed = parse(text as string) as Record<string, unknown>;
    const whole = 'platforms' in parsed || 'agent' in parsed;
    const raw = whole ? parsed : { platforms: { webhook: { extra: { routes: { example: parsed } } } } };
    const config = validateConfigObject(raw, 'docs/filters.md');
    const routes = [...staticRoutes(config).values()];
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) expect([...filterProblems(route, configDir), ...routeKeyProblems(route)]).toEqual([]);
  });
});
