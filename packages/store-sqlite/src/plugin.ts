// The `sqlite` store plugin (`store.backend: sqlite`, the default): its options schema and how it opens the file.
import { definePlugin, type PluginPackageJson, type StoreContribution } from '@hookwise/core';
import type { Logger } from 'winston';
import { createStore, type SqliteStoreConfig } from './store';

export const sqliteStore: StoreContribution<SqliteStoreConfig> = {
  kind: 'store',
  id: 'sqlite',
  description: 'One SQLite file in the config dir: nothing accepted is lost across crashes and restarts (one host).',
  // The keys of `store:` that are this backend's own; the gateway checks backend, max_pending and lease_seconds.
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      path: { type: 'string', description: 'The SQLite file, relative to the config dir (default hookwise.sqlite).' },
      synchronous: {
        type: 'string',
        enum: ['normal', 'full'],
        default: 'normal',
        description:
          'normal: an accepted event survives a crash or kill of the gateway (WAL, no fsync per commit). full: it also survives a power loss, at one fsync per grouped commit.',
      },
    },
  },
  // The store logs with info/warn/debug only, which the plugin logger has; its type still names winston's.
  create: (options, ctx) => createStore({ config: options, configDir: ctx.configDir, logger: ctx.logger as unknown as Logger }),
};

export default definePlugin({ package: require('../package.json') as PluginPackageJson, contributes: [sqliteStore] });
