#!/usr/bin/env node
// Creates a plugin package in plugins/<kind>-<name> in the one plugin layout and registers it everywhere a plugin
// must be registered (docs/writing-a-plugin.md, "Adding a plugin to this repository"): `npm run new:plugin -- <kind> <name>`.
// The layout: src/index.ts default-exports the plugin (definePlugin from package.json) and re-exports the named API of
// src/<name>.ts, the main file; tsconfig.json extends plugins/tsconfig.plugin.json; a deliverer or agent runner gives its
// contract's inputs in test/contract-scenarios.ts (packages/testing's first-party contracts test runs them).
'use strict';

const { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join, relative, sep } = require('node:path');
const { camel, kindTemplates, pascal } = require('./new-plugin-templates');

const KINDS = ['source', 'deliverer', 'agent', 'store'];
const USAGE = `usage: npm run new:plugin -- <${KINDS.join('|')}> <name> [--first-party] [--description "..."] [--root <repo>]

  <name>         lower-case words joined by '-' (e.g. acme-chat); the contribution id is acme_chat
  --first-party  also load it by default (the FIRST_PARTY_PLUGINS list) and make its package depend on it
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

/** The source file that declares FIRST_PARTY_PLUGINS, wherever the list lives now (packages/<x>/src). */
function firstPartyListFile(root) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && /export const FIRST_PARTY_PLUGINS\b/.test(readFileSync(path, 'utf8'))) files.push(path);
    }
  };
  for (const pkg of readdirSync(join(root, 'packages'))) if (existsSync(join(root, 'packages', pkg, 'src'))) walk(join(root, 'packages', pkg, 'src'));
  if (files.length !== 1) throw new Error(`expected one file declaring FIRST_PARTY_PLUGINS under packages/*/src, found ${files.length}`);
  return files[0];
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
  const contributionName = `${camel(name)}${pascal(kind === 'agent' ? 'runner' : kind)}`;
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
  else write(join(dir, 'test', 'unit', `${name}.test.ts`), t.test);
  write(
    join(dir, 'README.md'),
    `# ${packageName}

${description} Contributes the \`${kind}\` \`${names.id}\`${options.firstParty ? ', loaded by default' : `; load it with \`plugins: ['${packageName}']\``}.

## Configuration

\`\`\`yaml
${t.config}
\`\`\`

## Development

\`\`\`sh
npm run build                       # tsc -b, this package included
npx jest plugins/${folder}
\`\`\`

packages/testing's first-party contracts test checks that the \`hookwise\` field of package.json lists what the
plugin contributes${t.scenarios ? ' and runs its contract with the inputs in test/contract-scenarios.ts' : ''}.
`,
  );
  write(join(dir, 'LICENSE'), readFileSync(join(root, 'LICENSE'), 'utf8'));

  // The root build: tsc -b follows the references.
  const tsconfigFile = join(root, 'tsconfig.json');
  const tsconfig = readJson(tsconfigFile);
  // In alphabetical place, without reordering the entries already there.
  const at = tsconfig.references.findIndex((r) => r.path.localeCompare(`plugins/${folder}`) > 0);
  tsconfig.references.splice(at === -1 ? tsconfig.references.length : at, 0, { path: `plugins/${folder}` });
  writeJson(tsconfigFile, tsconfig);
  const changed = [relative(root, tsconfigFile)];

  if (options.firstParty) {
    const listFile = firstPartyListFile(root);
    const text = readFileSync(listFile, 'utf8');
    const list = /export const FIRST_PARTY_PLUGINS[^=]*= \[\n([\s\S]*?)\n\];/.exec(text);
    if (!list) throw new Error(`cannot find the FIRST_PARTY_PLUGINS array in ${relative(root, listFile)}`);
    writeFileSync(listFile, text.replace(list[0], list[0].replace(/\n\];$/, `\n  '${packageName}',\n];`)));
    // The package that lists it must depend on it, so that it resolves wherever that package is installed.
    const ownerFile = join(root, 'packages', relative(join(root, 'packages'), listFile).split(sep)[0], 'package.json');
    const owner = readJson(ownerFile);
    owner.dependencies = Object.fromEntries(Object.entries({ ...owner.dependencies, [packageName]: pkg.version }).sort(([a], [b]) => a.localeCompare(b)));
    writeJson(ownerFile, owner);
    changed.push(relative(root, listFile), relative(root, ownerFile));
  }
  return { packageName, dir: relative(root, dir), written, changed };
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
    console.log(`Registered in:\n${result.changed.map((f) => `  ~ ${f}`).join('\n')}`);
    console.log(`Next:
  npm install                      # links the new workspace (and updates package-lock.json)
  npm run build && npx jest ${result.dir}
  then write the real ${kind} in ${result.dir}/src and its README; docs/writing-a-plugin.md has the checklist`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  }
}

if (require.main === module) main();

module.exports = { generate, KINDS };
