// The plugin object the gateway loads (its name, version and API from package.json): the gitea source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { giteaSource } from './gitea';

export * from './gitea';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [giteaSource] });
