// @hookwise/plugin-source-matrix: Receives Matrix webhooks. The plugin object (its name, version and API from package.json) and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { matrixSource } from './matrix';

export * from './matrix';
export * from './matrix-replies';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [matrixSource] });
