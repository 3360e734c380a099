#!/usr/bin/env node
// Creates a plugin package in plugins/<kind>-<name> in the one plugin layout (docs/writing-a-plugin.md, "Adding a
// plugin to this repository"): `npm run new:plugin -- <kind> <name> [--first-party]`. Outside its folder it changes
// only package-lock.json (the new workspace) and, with --first-party, the one registration point: @hookwise/cli's
// dependency on it. The build, the docs tables and the tests find it from there and from its manifest.
// The layout: src/index.ts default-exports the plugin (definePlugin from package.json) and re-exports the named API of
// src/<name>.ts, the main file; tsconfig.json extends plugins/tsconfig.plugin.json; a deliverer or agent runner gives its
// contract's inputs in test/contract-scenarios.ts, a source the payloads its schema must accept in
// test/payload-samples.ts (packages/testing's first-party contracts test runs them).
'use strict';

const { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } = require('node:fs');
const { join, relative, sep } = require('node:path');
const { camel, kindTemplates, pascal } = require('./new-plugin-templates');

const KINDS = ['source', 'deliverer', 'agent', 'store'];
const USAGE = `usage: npm run new:plugin -- <${KINDS.join('|')}> <name> [--first-party] [--description "..."] [--root <repo>]

  <name>         lower-case words joined by '-' (e.g. acme-chat); the contribution id is acme_chat
  --first-party  also load it by default: @hookwise/cli (the distribution) depends on it
  --root         the repository to write into (default: this one)`;

function parseArgs(argv) {
  const args = { positional: [], firstParty: false, description: undefined, root: join(__dirname, '..') };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--first-party') args.firstParty = true;
    else if (arg === '--description') args.description = argv[++i];
    else if (arg === '--root') args.root = argv[++i];
    else if (arg === '-h' || arg === '--help') args.help = true;
    else if (arg.startsWith('-')) throw new Error(`unknown option ${arg}\n${USAGE}`);
    else args.positional.push(arg);
  }
  return args;
}

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const writeJson = (file, value) => writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);

/** The plugin API the core in `root` provides: new plugins are written for it. */
function pluginApiVersion(root) {
  const match = /export const PLUGIN_API_VERSION = (\d+);/.exec(readFileSync(join(root, 'packages', 'core', 'src', 'plugin.ts'), 'utf8'));
  if (!match) throw new Error('cannot find PLUGIN_API_VERSION in packages/core/src/plugin.ts');
  return Number(match[1]);
}

/** Inserts `key: value` into `object` before the first key that sorts after it, as npm orders the lock's entries. */
function insertSorted(object, key, value) {
  const entries = Object.entries(object).filter(([k]) => k !== key);
  const at = entries.findIndex(([k]) => k.localeCompare(key, 'en') > 0);
  entries.splice(at === -1 ? entries.length : at, 0, [key, value]);
  return Object.fromEntries(entries);
}

/** The lock file with the new workspace (and the distribution's dependency on it), as `npm install` writes them. */
function lockWorkspace(root, folder, pkg, firstParty) {
  const lockFile = join(root, 'package-lock.json');
  if (!existsSync(lockFile)) return undefined;
  const lock = readJson(lockFile);
  const { name, version, license, dependencies, engines, peerDependencies } = pkg;
  lock.packages = insertSorted(lock.packages, `node_modules/${name}`, { resolved: `plugins/${folder}`, link: true });
  lock.packages = insertSorted(lock.packages, `plugins/${folder}`, { name, version, license, dependencies, engines, peerDependencies });
  if (firstParty) {
    const cli = lock.packages['packages/cli'];
    cli.dependencies = insertSorted(cli.dependencies, name, version);
  }
  writeJson(lockFile, lock);
  return lockFile;
}

/** node_modules/<name> -> plugins/<folder>, as npm links a workspace; only into this repository's own node_modules. */
function linkWorkspace(root, folder, name) {
  const modules = join(root, 'node_modules');
  if (!existsSync(modules) || lstatSync(modules).isSymbolicLink() || !realpathSync(modules).startsWith(realpathSync(root) + sep)) return false;
  mkdirSync(join(modules, '@hookwise'), { recursive: true });
  symlinkSync(join('..', '..', 'plugins', folder), join(modules, name));
  return true;
}

function generate(kind, name, options) {
  const root = options.root;
  if (!KINDS.includes(kind)) throw new Error(`unknown kind '${kind}'; one of ${KINDS.join(', ')}\n${USAGE}`);
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name))
    throw new Error(`'${name}' is not a plugin name: lower-case letters and digits, words joined by '-'\n${USAGE}`);
  const folder = `${kind}-${name}`;
  const dir = join(root, 'plugins', folder);
  if (existsSync(dir)) throw new Error(`${relative(root, dir)} exists already`);
  const names = { id: name.replace(/-/g, '_'), Name: pascal(name), name, header: name, env: name.replace(/-/g, '_').toUpperCase() };
  const packageName = `@hookwise/plugin-${folder}`;
  const t = kindTemplates(kind, names);
  const description = options.description ?? t.description;
  const coreVersion = readJson(join(root, 'packages', 'core', 'package.json')).version;
  const kitVersion = readJson(join(root, 'packages', 'kit', 'package.json')).version;
  const written = [];
  const write = (path, text) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
    written.push(relative(root, path));
  };

  // The one place the plugin's name, version and plugin API live: definePlugin({ package }) reads them from here.
  const pkg = {
    name: packageName,
    version: '0.1.0',
    description,
    license: 'MIT',
    repository: { type: 'git', directory: `plugins/${folder}` },
    // main and types are what node and TypeScript read; npm packs README.md and LICENSE whatever files says.
    main: 'dist/index.js',
    types: 'dist/index.d.ts',
    files: ['dist', '!dist/.tsbuildinfo'],
    // The root LICENSE, copied into the package while npm packs it (no copy is committed).
    scripts: { prepack: 'node ../../scripts/pack-license.js', postpack: 'node ../../scripts/pack-license.js --remove' },
    engines: { node: '>=20' },
    keywords: ['hookwise', 'hookwise-plugin', kind, name],
    hookwise: { api: pluginApiVersion(root), contributes: [{ kind, id: names.id }] },
    peerDependencies: { '@hookwise/core': `^${coreVersion}` },
    ...(t.usesKit ? { dependencies: { '@hookwise/kit': kitVersion } } : {}),
  };
  mkdirSync(dir, { recursive: true });
  writeJson(join(dir, 'package.json'), pkg);
  written.push(relative(root, join(dir, 'package.json')));

  const references = [{ path: '../../packages/core' }, ...(t.usesKit ? [{ path: '../../packages/kit' }] : [])];
  // Everything else (rootDir, outDir, include) is the same for every plugin: plugins/tsconfig.plugin.json.
  write(join(dir, 'tsconfig.json'), `${JSON.stringify({ extends: '../tsconfig.plugin.json', references }, null, 2)}\n`);
  const contributionName = t.contribution ?? `${camel(name)}${pascal(kind === 'agent' ? 'runner' : kind)}`;
  write(
    join(dir, 'src', 'index.ts'),
    `// ${packageName}: ${description} The plugin object (its name, version and API from package.json) and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { ${contributionName} } from './${name}';

export * from './${name}';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [${contributionName}] });
`,
  );
  write(join(dir, 'src', `${name}.ts`), t.source);
  if (t.scenarios) write(join(dir, 'test', 'contract-scenarios.ts'), t.scenarios);
  if (t.samples) write(join(dir, 'test', 'payload-samples.ts'), t.samples);
  // A platform's test runs against a real HTTP server (integration); the others are unit tests.
  if (t.test) write(join(dir, 'test', kind === 'deliverer' ? 'integration' : 'unit', `${name}.test.ts`), t.test);
  write(
    join(dir, 'README.md'),
    `# ${packageName}

${description} Contributes the \`${kind}\` \`${names.id}\`${options.firstParty ? ', loaded by default' : `; load it with \`plugins: ['${packageName}']\``}.

## Configuration

\`\`\`yaml
${t.config}
\`\`\`
${t.glance ? `\n## At a glance\n\n| Platform | Target format | \`max_parts\` | Pacing per chat |\n|---|---|---|---|\n${t.glance}\n` : ''}
## Development

\`\`\`sh
npm run build                       # tsc -b, this package included
npx jest plugins/${folder}
\`\`\`

packages/testing's first-party contracts test checks that the \`hookwise\` field of package.json lists what the
plugin contributes${t.scenarios ? ' and runs its contract with the inputs in test/contract-scenarios.ts' : ''}.
`,
  );
  // The one registration point: the distribution depends on it, so it is installed, built (npm run build builds
  // every folder under plugins/), loaded by default and listed in the docs' tables.
  const changed = [];
  if (options.firstParty) {
    const cliFile = join(root, 'packages', 'cli', 'package.json');
    const cli = readJson(cliFile);
    cli.dependencies = insertSorted(cli.dependencies, packageName, pkg.version);
    writeJson(cliFile, cli);
    changed.push(relative(root, cliFile));
  }
  const lockFile = lockWorkspace(root, folder, pkg, options.firstParty);
  if (lockFile) changed.push(relative(root, lockFile));
  const linked = options.link !== false && linkWorkspace(root, folder, packageName);
  return { packageName, dir: relative(root, dir), written, changed, linked };
}

function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
    if (args.help) {
      console.log(USAGE);
      return;
    }
    if (args.positional.length !== 2) throw new Error(USAGE);
    const [kind, name] = args.positional;
    const result = generate(kind, name, args);
    console.log(`Created ${result.packageName} in ${result.dir}:\n${result.written.map((f) => `  + ${f}`).join('\n')}`);
    console.log(`Changed:\n${result.changed.map((f) => `  ~ ${f}`).join('\n')}${result.linked ? `\nLinked node_modules/${result.packageName}` : ''}`);
    console.log(`Next:
  npm run build && npx jest ${result.dir} packages/testing/test/integration/first-party-contracts.test.ts packages/testing/test/unit
  node scripts/platforms-doc.js && node scripts/sources-doc.js   # the docs' tables
  then write the real ${kind} in ${result.dir}/src and its README; docs/writing-a-plugin.md has the checklist`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  }
}

if (require.main === module) main();

module.exports = { generate, KINDS };
