// The plugin object the gateway loads (its name, version and API from package.json): one deliverer, github_comment (alias codehost_a_comment).
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { commentDeliverer } from './comment-deliverer';

export * from './comment-deliverer';
export * from './comment-target';
export * from './github-client';
export * from './comment-api';
export * from './sticky-comment';
export * from './github-actions';
export { appModeSchema, openAppMode, readPrivateKey, type AppModeOptions } from './app-mode';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [commentDeliverer] });
