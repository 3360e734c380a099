// @hookwise/plugin-source-dingtalk: Receives the messages of a DingTalk robot (the timestamp and sign headers of the app secret). The plugin object (its name, version and API from package.json) and its API.
import { definePlugin, type PluginPackageJson } from '@hookwise/core';
import { dingtalkSource } from './dingtalk';

export * from './dingtalk';
export * from './payload-schema';

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [dingtalkSource] });
