// The plugin object the gateway loads: one deliverer, codehost_a_comment.
import { definePlugin } from '@hookwise/core';
import { commentDeliverer } from './comment-deliverer';

export default definePlugin({
  meta: { name: '@hookwise/plugin-deliverer-codehost-a-comment', version: '0.1.0', api: 1 },
  contributes: [commentDeliverer],
});
