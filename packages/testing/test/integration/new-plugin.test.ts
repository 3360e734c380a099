// scripts/new-plugin.js in a scratch copy of the repository's registration points: each kind's package is created
// and registered in the one plugin layout, type-checks (sources and tests, against the built core, kit and testing), and
// its generated tests and the checks the first-party contracts test makes (manifest, contract) pass here, so a new plugin
// starts green.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { PLUGIN_API_VERSION } from '@hookwise/core';
import { describeAgentRunnerContract, describeDelivererContract, describePluginManifestContract, type PluginPackageJson } from '../../src';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

const ROOT = join(TEST_DIR, '..', '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'new-plugin.js');
const KINDS = ['deliverer', 'agent', 'source', 'store'] as const;
const NAME = 'acme-chat';

/** The file that declares FIRST_PARTY_PLUGINS in the real tree, relative to the root. */
function firstPartyFile(): string {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && /export const FIRST_PARTY_PLUGINS\b/.test(readFileSync(path, 'utf8'))) found.push(path);
    }
  };
  for (const pkg of readdirSync(join(ROOT, 'packages'))) if (existsSync(join(ROOT, 'packages', pkg, 'src'))) walk(join(ROOT, 'packages', pkg, 'src'));
  return relative(ROOT, found[0]);
}

// A scratch repository: the files the generator edits are copies, what it only reads (and the build) is linked.
const work = mkdtempSync(join(tmpdir(), 'hw-new-plugin-'));
const listFile = firstPartyFile();
const ownerDir = join('packages', listFile.split('/')[1]);
for (const file of [
  'tsconfig.json',
  'tsconfig.base.json',
  'plugins/tsconfig.plugin.json',
  'LICENSE',
  'package.json',
  listFile,
  join(ownerDir, 'package.json'),
]) {
  mkdirSync(dirname(join(work, file)), { recursive: true });
  cpSync(join(ROOT, file), join(work, file));
}
for (const pkg of ['core', 'kit', 'testing']) symlinkSync(join(ROOT, 'packages', pkg), join(work, 'packages', pkg));
symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'));

const run = (args: string[]) => {
  try {
    return { code: 0, out: execFileSync(process.execPath, [SCRIPT, ...args, '--root', work], { encoding: 'utf8', stdio: 'pipe' }) };
  } catch (err) {
    const e = err as { status: number; stderr: string };
    return { code: e.status, out: e.stderr };
  }
};
const generated = Object.fromEntries(KINDS.map((kind) => [kind, run([kind, NAME, ...(kind === 'deliverer' ? ['--first-party'] : [])])]));

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm run new:plugin -- <kind> <name>', () => {
  it.each(KINDS)('creates plugins/%s-acme-chat in the one layout: package, shared tsconfig, index and main file, test, README and LICENSE', (kind) => {
    expect(generated[kind]).toMatchObject({ code: 0 });
    const dir = join(work, 'plugins', `${kind}-${NAME}`);
    const test = kind === 'deliverer' || kind === 'agent' ? 'test/contract-scenarios.ts' : `test/unit/${NAME}.test.ts`;
    expect(readdirSync(join(dir, 'src')).sort()).toEqual([`${NAME}.ts`, 'index.ts']);
    for (const file of ['package.json', 'tsconfig.json', 'README.md', test]) expect(existsSync(join(dir, file))).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8'))).toMatchObject({ extends: '../tsconfig.plugin.json' });
    expect(readFileSync(join(dir, 'src', 'index.ts'), 'utf8')).toContain("export default definePlugin({ package: require('../package.json')");
    expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toBe(readFileSync(join(ROOT, 'LICENSE'), 'utf8'));
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; hookwise: unknown; dependencies?: Record<string, string> };
    expect(pkg.name).toBe(`@hookwise/plugin-${kind}-${NAME}`);
    expect(pkg.hookwise).toEqual({ api: PLUGIN_API_VERSION, contributes: [{ kind, id: 'acme_chat' }] });
    // Stores depend on core only (eslint.config.mjs); the others on the kit too.
    expect(pkg.dependencies?.['@hookwise/kit'] !== undefined).toBe(kind !== 'store');
    // package.json is the one place of its identity.
    for (const file of readdirSync(join(dir, 'src'))) expect(readFileSync(join(dir, 'src', file), 'utf8')).not.toContain(`'${pkg.name}'`);
  });

  it('registers every package in the root tsconfig.json, in alphabetical place, leaving the other entries as they were', () => {
    const before = (JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { references: Array<{ path: string }> }).references.map((r) => r.path);
    const after = (JSON.parse(readFileSync(join(work, 'tsconfig.json'), 'utf8')) as { references: Array<{ path: string }> }).references.map((r) => r.path);
    const added = KINDS.map((kind) => `plugins/${kind}-${NAME}`);
    expect(after.filter((p) => !added.includes(p))).toEqual(before);
    expect(added.every((p) => after.includes(p))).toBe(true);
    expect(after.indexOf('plugins/agent-acme-chat')).toBeLessThan(after.indexOf('plugins/agent-command'));
  });

  it('with --first-party, adds it to FIRST_PARTY_PLUGINS and to the dependencies of the package that lists it', () => {
    expect(readFileSync(join(work, listFile), 'utf8')).toContain(`  '@hookwise/plugin-deliverer-${NAME}',\n];`);
    expect(readFileSync(join(work, listFile), 'utf8')).not.toContain(`'@hookwise/plugin-agent-${NAME}'`);
    const owner = JSON.parse(readFileSync(join(work, ownerDir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(owner.dependencies[`@hookwise/plugin-deliverer-${NAME}`]).toBe('0.1.0');
  });

  it('refuses an unknown kind, a bad name and a package that exists, saying why', () => {
    expect(run(['widget', 'x'])).toMatchObject({ code: 1, out: expect.stringContaining("unknown kind 'widget'") });
    expect(run(['agent', 'Acme_Chat'])).toMatchObject({ code: 1, out: expect.stringContaining('is not a plugin name') });
    expect(run(['agent', NAME])).toMatchObject({ code: 1, out: expect.stringContaining('plugins/agent-acme-chat exists already') });
  });

  it('writes packages that type-check, sources and tests (against the built core, kit and testing)', () => {
    writeFileSync(
      join(work, 'tsconfig.check.json'),
      JSON.stringify({
        extends: './tsconfig.base.json',
        compilerOptions: { noEmit: true, composite: false, declaration: false, declarationMap: false, incremental: false, types: ['node', 'jest'] },
        include: ['plugins/*/src', 'plugins/*/test'],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', join(work, 'tsconfig.check.json')], { cwd: work, encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      output = `${(err as { stdout: string }).stdout}`;
    }
    expect(output).toBe('');
  }, 60_000);
});

// The generated tests and contract inputs, run here as the first-party contracts test runs them (ts-jest compiles
// them; @hookwise/* resolve to the sources).
for (const kind of KINDS) {
  const dir = join(work, 'plugins', `${kind}-${NAME}`);
  describe(`the generated ${kind}`, () => {
    if (!existsSync(join(dir, 'package.json'))) return void it('exists', () => expect(existsSync(dir)).toBe(true));
    describePluginManifestContract(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PluginPackageJson, () => require(join(dir, 'src')), dir);
    const testFile = join(dir, 'test', 'unit', `${NAME}.test.ts`);
    if (existsSync(testFile)) require(testFile);
    const scenarios = join(dir, 'test', 'contract-scenarios.ts');
    if (!existsSync(scenarios)) return;
    const contract = require(scenarios).default;
    if (contract.kind === 'deliverer') describeDelivererContract(contract.name, contract.factory, contract.options);
    else describeAgentRunnerContract(contract.name, contract.factory, contract.options);
  });
}
