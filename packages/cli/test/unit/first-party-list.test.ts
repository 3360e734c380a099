// FIRST_PARTY_PLUGINS is what the hookwise distribution loads by default: this package's dependencies on plugins and
// stores. What must agree with it is checked here: the plugin folders (each one listed, each one built), the docs'
// tables (generated from the same manifests), and the packages that must not list the plugins again.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FIRST_PARTY_PLUGINS } from '../../src/first-party';

const root = join(__dirname, '..', '..', '..', '..');
const readJson = (...path: string[]): Record<string, unknown> => JSON.parse(readFileSync(join(root, ...path), 'utf8')) as Record<string, unknown>;
const readText = (...path: string[]): string => readFileSync(join(root, ...path), 'utf8');

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  hookwise?: { contributes?: Array<{ kind: string; id: string }> };
}

/** plugins/<x> for @hookwise/plugin-<x>; packages/<x> for the stores (@hookwise/store-<x>). */
const folderOf = (name: string): string =>
  name.startsWith('@hookwise/plugin-') ? `plugins/${name.slice('@hookwise/plugin-'.length)}` : `packages/${name.slice('@hookwise/'.length)}`;
const manifestOf = (name: string): Manifest => readJson(folderOf(name), 'package.json') as unknown as Manifest;
/** The ids a first-party package contributes of one kind, from its package.json "hookwise" field. */
const idsOf = (kind: string): string[] =>
  FIRST_PARTY_PLUGINS.flatMap((name) => (manifestOf(name).hookwise?.contributes ?? []).filter((c) => c.kind === kind).map((c) => c.id)).sort();
const isPluginOrStore = (name: string): boolean => /^@hookwise\/(plugin-|store-)/.test(name);
const sorted = (values: Iterable<string>): string[] => [...values].sort();

/** The rows of the first markdown table whose header row starts with `header`, split into trimmed cells. */
function tableRows(markdown: string, header: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`| ${header} |`));
  if (start === -1) throw new Error(`no table with the header "| ${header} |"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}
/** The first `code` span of a table cell. */
const firstCode = (cell: string): string => /`([^`]+)`/.exec(cell)?.[1] ?? cell;

describe('FIRST_PARTY_PLUGINS', () => {
  it('names each package once, each an existing workspace package of that name', () => {
    expect(new Set(FIRST_PARTY_PLUGINS).size).toBe(FIRST_PARTY_PLUGINS.length);
    for (const name of FIRST_PARTY_PLUGINS) expect({ name, folder: manifestOf(name).name }).toEqual({ name, folder: name });
  });

  it('is every folder under plugins/ (a plugin outside the list would be built and never loaded)', () => {
    const listed = FIRST_PARTY_PLUGINS.filter((name) => name.startsWith('@hookwise/plugin-')).map((name) => folderOf(name));
    const folders = readdirSync(join(root, 'plugins'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `plugins/${entry.name}`);
    expect(sorted(folders)).toEqual(sorted(listed));
  });

  it('is built without a list: npm run build builds every folder under plugins/, the root tsconfig.json names none', () => {
    expect((readJson('package.json') as { scripts: Record<string, string> }).scripts.build).toMatch(/^tsc -b \. plugins\/\*\/ /);
    const references = (readJson('tsconfig.json').references as Array<{ path: string }>).map((r) => r.path);
    expect(references.filter((path) => path.startsWith('plugins/'))).toEqual([]);
    for (const name of FIRST_PARTY_PLUGINS.filter((n) => n.startsWith('@hookwise/store-'))) expect(references).toContain(folderOf(name));
  });

  it('is installed with the CLI: @hookwise/cli depends on exactly these plugins and stores', () => {
    const deps = Object.keys((readJson('packages', 'cli', 'package.json') as unknown as Manifest).dependencies ?? {});
    expect(sorted(deps.filter(isPluginOrStore))).toEqual(sorted(FIRST_PARTY_PLUGINS));
  });

  it('lives nowhere else: the gateway and the hookwise package depend on no plugin and no store', () => {
    for (const pkg of ['gateway', 'hookwise']) {
      const deps = Object.keys((readJson('packages', pkg, 'package.json') as unknown as Manifest).dependencies ?? {});
      expect({ pkg, plugins: deps.filter(isPluginOrStore) }).toEqual({ pkg, plugins: [] });
    }
    expect((readJson('packages', 'hookwise', 'package.json') as unknown as Manifest).dependencies).toHaveProperty(['@hookwise/cli']);
  });

  it('is the table of docs/platforms.md: one row per first-party deliverer, its id and its package', () => {
    const rows = tableRows(readText('docs', 'platforms.md'), 'Real name');
    const deliverers = FIRST_PARTY_PLUGINS.filter((name) => name.startsWith('@hookwise/plugin-deliverer-'));
    expect(sorted(rows.map((row) => firstCode(row[row.length - 1])))).toEqual(sorted(deliverers));
    expect(sorted(rows.map((row) => firstCode(row[0])))).toEqual(idsOf('deliverer'));
  });

  it('is the table of docs/sources.md: one row per source a first-party plugin contributes', () => {
    const rows = tableRows(readText('docs', 'sources.md'), 'source');
    expect(sorted(rows.map((row) => firstCode(row[0])))).toEqual(idsOf('source'));
  });
});
