// The plugin object the gateway loads (its name, version and API from package.json): the twilio source; and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { twilioSource } from './twilio';

export * from './twilio';
export * from './twilio-replies';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [twilioSource] });
