// docs/filters.md shows configs people copy: every ```yaml block must validate against the config schema and pass
// the checks the gateway makes at startup (filters compile, key templates are usable). A block that is not a
// whole config is a route's keys.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { validateConfigObject } from '../../src/config/load';
import { filterProblems } from '../../src/ingest/filters';
import { routeKeyProblems } from '../../src/ingest/route-keys';
import { staticRoutes } from '../../src/routes/routes';

const DOC = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'filters.md'), 'utf8');
const blocks = [...DOC.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1]);

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
    for (const route of routes) expect([...filterProblems(route), ...routeKeyProblems(route)]).toEqual([]);
  });
});
