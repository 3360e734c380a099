// scripts/new-plugin.js in a scratch copy of the repository: each kind's package is created in the one plugin layout,
// and outside its folder the generator changes only the one registration point (@hookwise/cli's dependency, with
// --first-party) and package-lock.json. The packages type-check, their generated tests and the checks the first-party
// contracts test makes pass here, and the docs' tables list the new deliverer and source, so a new plugin starts
// green. The real repository is only read: the scratch tree links what it does not change.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { PLUGIN_API_VERSION } from '@hookwise/core';
import {
  describeAgentRunnerContract,
  describeDelivererContract,
  describePluginManifestContract,
  describeSourcePayloadSchema,
  type PluginPackageJson,
} from '../../src';

const ROOT = join(__dirname, '..', '..', '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'new-plugin.js');
const KINDS = ['deliverer', 'agent', 'source', 'store'] as const;
const FIRST_PARTY = ['deliverer', 'source'];
const NAME = 'acme-chat';

// The scratch repository: copies of what the generator may change or the docs generators read, links to the rest.
const work = mkdtempSync(join(tmpdir(), 'hw-new-plugin-'));
for (const file of [
  'tsconfig.base.json',
  'plugins/tsconfig.plugin.json',
  'LICENSE',
  'package.json',
  'package-lock.json',
  'packages/cli/package.json',
  'docs/platforms.md',
]) {
  mkdirSync(dirname(join(work, file)), { recursive: true });
  cpSync(join(ROOT, file), join(work, file));
}
for (const pkg of ['core', 'kit', 'testing']) symlinkSync(join(ROOT, 'packages', pkg), join(work, 'packages', pkg));
for (const folder of readdirSync(join(ROOT, 'plugins'), { withFileTypes: true }).filter((e) => e.isDirectory()))
  symlinkSync(join(ROOT, 'plugins', folder.name), join(work, 'plugins', folder.name));
for (const store of ['store-sqlite', 'store-redis']) symlinkSync(join(ROOT, 'packages', store), join(work, 'packages', store));
symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'));

/** Every file of the scratch tree (links not followed) with a hash of its content. */
function snapshot(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.set(relative(work, path), createHash('sha256').update(readFileSync(path)).digest('hex'));
    }
  };
  walk(work);
  return files;
}

const run = (args: string[]) => {
  try {
    return { code: 0, out: execFileSync(process.execPath, [SCRIPT, ...args, '--root', work], { encoding: 'utf8', stdio: 'pipe' }) };
  } catch (err) {
    const e = err as { status: number; stderr: string };
    return { code: e.status, out: e.stderr };
  }
};
const before = snapshot();
const generated = Object.fromEntries(KINDS.map((kind) => [kind, run([kind, NAME, ...(FIRST_PARTY.includes(kind) ? ['--first-party'] : [])])]));
const after = snapshot();
const folderOf = (kind: string) => `plugins/${kind}-${NAME}`;

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm run new:plugin -- <kind> <name>', () => {
  it.each(KINDS)('creates plugins/%s-acme-chat in the one layout: package, shared tsconfig, index and main file, test, README', (kind) => {
    expect(generated[kind]).toMatchObject({ code: 0 });
    const dir = join(work, folderOf(kind));
    const tests = {
      deliverer: ['test/contract-scenarios.ts', `test/integration/${NAME}.test.ts`],
      agent: ['test/contract-scenarios.ts'],
      source: [`test/unit/${NAME}.test.ts`],
      store: [`test/unit/${NAME}.test.ts`],
    }[kind];
    expect(readdirSync(join(dir, 'src')).sort()).toEqual([`${NAME}.ts`, 'index.ts']);
    for (const file of ['package.json', 'tsconfig.json', 'README.md', ...tests])
      expect({ file, exists: existsSync(join(dir, file)) }).toEqual({ file, exists: true });
    expect(JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8'))).toMatchObject({ extends: '../tsconfig.plugin.json' });
    expect(readFileSync(join(dir, 'src', 'index.ts'), 'utf8')).toContain("export default definePlugin({ package: require('../package.json')");
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PluginPackageJson & { scripts: Record<string, string> };
    expect(pkg.name).toBe(`@hookwise/plugin-${kind}-${NAME}`);
    expect(pkg.hookwise).toEqual({ api: PLUGIN_API_VERSION, contributes: [{ kind, id: 'acme_chat' }] });
    // No LICENSE copy: the root one goes into the tarball at pack time.
    expect(existsSync(join(dir, 'LICENSE'))).toBe(false);
    expect(pkg.scripts.prepack).toBe('node ../../scripts/pack-license.js');
    // Stores depend on core only (eslint.config.mjs); the others on the kit too.
    expect(pkg.dependencies?.['@hookwise/kit'] !== undefined).toBe(kind !== 'store');
    for (const file of readdirSync(join(dir, 'src'))) expect(readFileSync(join(dir, 'src', file), 'utf8')).not.toContain(`'${pkg.name}'`);
  });

  it('writes a platform on definePlatform and a source on defineSource, each under 200 lines with its tests', () => {
    expect(readFileSync(join(work, folderOf('deliverer'), 'src', `${NAME}.ts`), 'utf8')).toContain('definePlatform<AcmeChatOptions>({');
    expect(readFileSync(join(work, folderOf('source'), 'src', `${NAME}.ts`), 'utf8')).toContain('defineSource({');
    for (const kind of FIRST_PARTY) {
      const lines = [...after.keys()]
        .filter((f) => f.startsWith(`${folderOf(kind)}/`))
        .reduce((n, f) => n + readFileSync(join(work, f), 'utf8').split('\n').length - 1, 0);
      expect({ kind, under200: lines < 200 }).toEqual({ kind, under200: true });
    }
  });

  it('changes nothing outside the new folders but the distribution package.json (--first-party) and package-lock.json', () => {
    const changed = [...after.keys()].filter((file) => before.get(file) !== after.get(file) && !KINDS.some((kind) => file.startsWith(`${folderOf(kind)}/`)));
    expect(changed.sort()).toEqual(['package-lock.json', 'packages/cli/package.json']);
    expect([...before.keys()].filter((file) => !after.has(file))).toEqual([]);
    // The real node_modules is linked here: the generator links a workspace only into the repository's own.
    expect(existsSync(join(ROOT, 'node_modules', '@hookwise', `plugin-deliverer-${NAME}`))).toBe(false);
  });

  it('with --first-party, makes @hookwise/cli depend on it, and locks every new workspace as npm install does', () => {
    const cli = JSON.parse(readFileSync(join(work, 'packages', 'cli', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(cli.dependencies).filter((name) => name.endsWith(NAME))).toEqual([
      `@hookwise/plugin-deliverer-${NAME}`,
      `@hookwise/plugin-source-${NAME}`,
    ]);
    const lock = JSON.parse(readFileSync(join(work, 'package-lock.json'), 'utf8')) as { packages: Record<string, Record<string, unknown>> };
    for (const kind of KINDS) {
      expect(lock.packages[`node_modules/@hookwise/plugin-${kind}-${NAME}`]).toEqual({ resolved: folderOf(kind), link: true });
      expect(lock.packages[folderOf(kind)]).toMatchObject({ name: `@hookwise/plugin-${kind}-${NAME}`, version: '0.1.0' });
    }
    expect(lock.packages['packages/cli'].dependencies).toMatchObject({ [`@hookwise/plugin-deliverer-${NAME}`]: '0.1.0' });
    const keys = Object.keys(lock.packages).filter((k) => k.startsWith('plugins/'));
    expect(keys).toEqual([...keys].sort((a, b) => a.localeCompare(b, 'en')));
  });

  it('puts the new deliverer into the tables of docs/platforms.md and the new source into docs/sources.md', () => {
    const platforms = (require(join(ROOT, 'scripts', 'platforms-doc.js')) as { render(root: string): string }).render(work);
    expect(platforms).toContain(`| \`acme_chat\` | — | AcmeChat | \`@hookwise/plugin-deliverer-${NAME}\` |`);
    expect(platforms).toMatch(/\| `acme_chat` \| a channel id[^|]*\| 10 \| none \|/);
    const sources = (require(join(ROOT, 'scripts', 'sources-doc.js')) as { render(root: string): string }).render(work);
    expect(sources).toContain('| [`acme_chat`](#acmechat) |');
    expect(sources).toContain(`Package \`@hookwise/plugin-source-${NAME}\`.`);
  });

  it('refuses an unknown kind, a bad name and a package that exists, saying why', () => {
    expect(run(['widget', 'x'])).toMatchObject({ code: 1, out: expect.stringContaining("unknown kind 'widget'") });
    expect(run(['agent', 'Acme_Chat'])).toMatchObject({ code: 1, out: expect.stringContaining('is not a plugin name') });
    expect(run(['agent', NAME])).toMatchObject({ code: 1, out: expect.stringContaining('plugins/agent-acme-chat exists already') });
  });

  it('writes packages that build and type-check, sources and tests (against the built core, kit and testing)', () => {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const outputs: string[] = [];
    const check = (args: string[]) => {
      try {
        execFileSync(process.execPath, [tsc, ...args], { cwd: work, encoding: 'utf8', stdio: 'pipe' });
      } catch (err) {
        outputs.push(`${(err as { stdout: string }).stdout}`);
      }
    };
    // What npm run build does for a folder under plugins/: its own tsconfig, into its dist.
    check(['-b', ...KINDS.map(folderOf)]);
    writeFileSync(
      join(work, 'tsconfig.check.json'),
      JSON.stringify({
        extends: './tsconfig.base.json',
        compilerOptions: { noEmit: true, composite: false, declaration: false, declarationMap: false, incremental: false, types: ['node', 'jest'] },
        include: KINDS.flatMap((kind) => [`${folderOf(kind)}/src`, `${folderOf(kind)}/test`]),
      }),
    );
    check(['-p', join(work, 'tsconfig.check.json')]);
    expect(outputs).toEqual([]);
    for (const kind of KINDS) expect(lstatSync(join(work, folderOf(kind), 'dist', 'index.js')).isFile()).toBe(true);
  }, 60_000);
});

// The generated tests and contract inputs, run here as the first-party contracts test runs them (ts-jest compiles
// them; @hookwise/* resolve to the sources).
for (const kind of KINDS) {
  const dir = join(work, folderOf(kind));
  describe(`the generated ${kind}`, () => {
    if (!existsSync(join(dir, 'package.json'))) return void it('exists', () => expect(existsSync(dir)).toBe(true));
    describePluginManifestContract(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PluginPackageJson, () => require(join(dir, 'src')), dir);
    for (const testFile of [join(dir, 'test', 'unit', `${NAME}.test.ts`), join(dir, 'test', 'integration', `${NAME}.test.ts`)])
      if (existsSync(testFile)) require(testFile);
    const samples = join(dir, 'test', 'payload-samples.ts');
    if (existsSync(samples)) describeSourcePayloadSchema(require(join(dir, 'src')).default.contributes[0], require(samples).default);
    const scenarios = join(dir, 'test', 'contract-scenarios.ts');
    if (!existsSync(scenarios)) return;
    const contract = require(scenarios).default;
    if (contract.kind === 'deliverer') describeDelivererContract(contract.name, contract.factory, contract.options);
    else describeAgentRunnerContract(contract.name, contract.factory, contract.options);
  });
}
