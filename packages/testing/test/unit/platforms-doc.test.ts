// docs/platforms.md's tables of deliverers are generated from the deliverers' manifests and READMEs; this keeps the
// committed guide current, and each README's "At a glance" row true to the plugin's code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..', '..');

interface Deliverer {
  id: string;
  package: string;
  glance?: { maxParts: string };
}
const { deliverers, render } = require(join(root, 'scripts', 'platforms-doc.js')) as { deliverers(): Deliverer[]; render(): string };

describe('docs/platforms.md', () => {
  it('has the tables generated from the deliverers (regenerate: node scripts/platforms-doc.js)', () => {
    expect(readFileSync(join(root, 'docs', 'platforms.md'), 'utf8')).toBe(render());
  });

  it.each(deliverers().map((d) => [d.id, d] as const))("%s: the README's max_parts is the platform's own", (_id, d) => {
    type Contribution = { id: string; platform?: unknown; optionsSchema: { properties?: { max_parts?: { default?: number } } } };
    const plugin = require(d.package) as { default: { contributes: Contribution[] } };
    const contribution = plugin.default.contributes.find((c) => c.id === d.id)!;
    // definePlatform writes the platform's max_parts (its own or the kit's default) into its options schema; a
    // deliverer that is not a platform (one comment) says `—`.
    const expected = contribution.platform ? String(contribution.optionsSchema.properties?.max_parts?.default) : '—';
    expect(d.glance?.maxParts).toBe(expected);
  });
});
