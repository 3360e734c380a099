// The plugin object the gateway loads (its name, version and API from package.json): the github source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { githubSource } from './github';

export * from './github';
export * from './github-replies';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [githubSource] });
