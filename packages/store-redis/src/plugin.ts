// The `redis` store plugin (`store.backend: redis`): its options schema, and the store code (ioredis, bullmq)
// loaded only when a gateway opens this backend.
import { definePlugin, type PluginPackageJson, type StoreContribution } from '@hookwise/core';
import type { Logger } from 'winston';
import type { RedisStoreConfig } from './store';

export const redisStore: StoreContribution<RedisStoreConfig> = {
  kind: 'store',
  id: 'redis',
  description: 'Redis: several gateway instances on one Redis act as one.',
  // The keys of `store:` that are this backend's own; the gateway checks backend, max_pending and lease_seconds.
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      // Not `required`: createStore's own message says what to write when it is missing.
      url: { type: 'string', description: 'redis://[:password@]host:port[/db] (or rediss://); ${REDIS_URL} keeps the password in .env.' },
      prefix: { type: 'string', description: 'Key prefix; deployments sharing one Redis need different ones (default hookwise).' },
    },
  },
  async create(options, ctx) {
    // Every gateway loads this plugin (it is first-party); only one that uses Redis pays for loading its client.
    const { createStore } = await import('./store');
    if (options.url) {
      try {
        ctx.redact(new URL(options.url).password || undefined);
      } catch {
        /* not a URL: createStore says so */
      }
    }
    // The store logs with info/warn/debug only, which the plugin logger has; its type still names winston's.
    return createStore({ config: options, configDir: ctx.configDir, logger: ctx.logger as unknown as Logger });
  },
};

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [redisStore] });
