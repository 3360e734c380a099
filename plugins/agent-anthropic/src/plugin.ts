// The plugin object the gateway loads; its name, version and plugin API come from package.json.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { anthropicRunner } from './anthropic';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [anthropicRunner] });
