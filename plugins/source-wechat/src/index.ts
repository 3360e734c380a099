// @hookwise/plugin-source-wechat: Receives WeChat Official Account messages and events (the server URL check, signature or msg_signature, plaintext or AES-encrypted XML). The plugin object (its name, version and API from package.json) and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { wechatSource } from './wechat';

export * from './wechat';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [wechatSource] });
