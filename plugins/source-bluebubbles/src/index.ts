// @hookwise/plugin-source-bluebubbles: Receives BlueBubbles server webhooks (iMessage), with the route secret in the webhook URL. The plugin object (its name, version and API from package.json) and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { bluebubblesSource } from './bluebubbles';

export * from './bluebubbles';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [bluebubblesSource] });
