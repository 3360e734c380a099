// @hookwise/plugin-source-mattermost: Receives Mattermost webhooks. The plugin object (its name, version and API from package.json) and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { mattermostSource } from './mattermost';

export * from './mattermost';
export * from './mattermost-replies';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [mattermostSource] });
