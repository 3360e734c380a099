// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, email.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { emailPlatform } from './email';

export * from './email';
export * from './smtp-failure';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [emailPlatform] });
