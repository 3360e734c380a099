// The plugin object the gateway loads (its name, version and API from package.json): the sendgrid source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { sendgridSource } from './sendgrid';

export * from './sendgrid';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [sendgridSource] });
