// @hookwise/plugin-source-wecom: Receives WeCom (WeChat Work) app callbacks (msg_signature, AES-encrypted XML, the GET echostr check). The plugin object (its name, version and API from package.json) and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { wecomSource } from './wecom';

export * from './wecom';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [wecomSource] });
