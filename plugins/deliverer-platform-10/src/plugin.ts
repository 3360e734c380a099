// The plugin object the gateway loads: one deliverer, platform_10.
import { definePlugin } from '@hookwise/core';
import { smtpMailPlatform } from './smtp-mail';

export default definePlugin({
  meta: { name: '@hookwise/plugin-deliverer-platform-10', version: '0.1.0', api: 1 },
  contributes: [smtpMailPlatform],
});
