// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, sms.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { smsPlatform } from './sms';

export * from './sms';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [smsPlatform] });
