// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, github_comment (alias codehost_a_comment).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { commentDeliverer } from './comment-deliverer';

export * from './comment-deliverer';
export * from './comment-target';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [commentDeliverer] });
