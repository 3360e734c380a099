// The first-party plugins as their manifests say: the distribution's (packages/cli) dependencies on plugin and store
// packages, and what each one's package.json `hookwise` field contributes. The docs generators and the tests that
// list plugin ids read them here, so that adding a plugin is its folder and one dependency line.
'use strict';

const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const isPluginOrStore = (name) => /^@hookwise\/(plugin-|store-)/.test(name);

/** plugins/<x> for @hookwise/plugin-<x>; packages/<x> for the stores (@hookwise/store-<x>). */
const folderOf = (name) =>
  name.startsWith('@hookwise/plugin-') ? `plugins/${name.slice('@hookwise/plugin-'.length)}` : `packages/${name.slice('@hookwise/'.length)}`;

/** The package names the distribution loads by default: @hookwise/cli's dependencies on plugins and stores. */
function firstPartyPackages(root = ROOT) {
  return Object.keys(readJson(join(root, 'packages', 'cli', 'package.json')).dependencies ?? {})
    .filter(isPluginOrStore)
    .sort();
}

/** Each first-party package with its folder, its package.json and the contributions its manifest lists. */
function firstPartyManifests(root = ROOT) {
  return firstPartyPackages(root).map((name) => {
    const dir = folderOf(name);
    const pkg = readJson(join(root, dir, 'package.json'));
    return { name, dir, pkg, contributes: pkg.hookwise?.contributes ?? [] };
  });
}

/** Every contribution of one kind (`deliverer`, `source`, ...) with its package, sorted by id. */
function contributions(kind, root = ROOT) {
  return firstPartyManifests(root)
    .flatMap((m) => m.contributes.filter((c) => c.kind === kind).map((c) => ({ id: c.id, aliases: c.aliases ?? [], package: m.name, dir: m.dir, pkg: m.pkg })))
    .sort((a, b) => a.id.localeCompare(b.id));
}

module.exports = { contributions, firstPartyManifests, firstPartyPackages, folderOf, isPluginOrStore };
