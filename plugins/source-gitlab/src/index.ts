// The plugin object the gateway loads (its name, version and API from package.json): the gitlab source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { gitlabSource } from './gitlab';

export * from './gitlab';
export * from './gitlab-replies';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [gitlabSource] });
