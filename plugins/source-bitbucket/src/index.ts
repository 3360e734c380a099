// The plugin object the gateway loads (its name, version and API from package.json): the bitbucket source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { bitbucketSource } from './bitbucket';

export * from './bitbucket';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [bitbucketSource] });
