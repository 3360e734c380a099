// The plugin object the gateway loads: one deliverer, platform_03.
import { definePlugin } from '@hookwise/core';
import { workspaceApiPlatform } from './workspace-api';

export default definePlugin({
  meta: { name: '@hookwise/plugin-deliverer-platform-03', version: '0.1.0', api: 1 },
  contributes: [workspaceApiPlatform],
});
