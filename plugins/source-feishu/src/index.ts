// @hookwise/plugin-source-feishu: Receives Feishu / Lark event subscriptions (X-Lark-Signature, encrypted bodies, the url_verification challenge). The plugin object (its name, version and API from package.json) and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { feishuSource } from './feishu';

export * from './feishu';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [feishuSource] });
