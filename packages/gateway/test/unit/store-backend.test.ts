// store.backend: a registered store id (the built-in memory store, one from plugins:) or a store package loaded by
// name; the backend's own options are checked by its optionsSchema and problems name `store.<key>`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { HookwiseConfigError, definePlugin, type StoreConfig } from '@hookwise/core';
import { createLogger } from '../../src/observe/logger';
import { openStoreBackend, type OpenBackendOptions } from '../../src/plugins/store-backend';
import type { LoadedPlugin } from '../../src/plugins/loader';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hookwise-store-backend-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function files(tree: Record<string, string | object>): void {
  for (const [path, content] of Object.entries(tree)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), typeof content === 'string' ? content : JSON.stringify(content));
  }
}

/** A CommonJS store package: a memory store (borrowed from the gateway) that remembers its options. */
const STORE_PACKAGE = (name: string, ids: string[]) => `
const { definePlugin } = require('@hookwise/core');
const { createMemoryStore } = require('@hookwise/gateway');
module.exports = definePlugin({
  meta: { name: '${name}', version: '1.0.0', api: 2 },
  contributes: ${JSON.stringify(ids)}.map((id) => ({
    kind: 'store',
    id,
    optionsSchema: { type: 'object', additionalProperties: false, properties: { file: { type: 'string' }, shards: { type: 'integer', default: 4 } } },
    create: (options) => Object.assign(createMemoryStore(), { options }),
  })),
});
`;

const logger = createLogger({ level: 'error', silent: true });
const options = (store: Partial<StoreConfig>, plugins: LoadedPlugin[] = []): OpenBackendOptions => ({
  config: { backend: 'memory', max_pending: 100, lease_seconds: 30, ...store },
  plugins,
  load: { configDir: dir, cwd: dir },
  ctx: { logger, configDir: dir, env: {}, signal: new AbortController().signal, redact: () => undefined },
});

async function problemsOf(promise: Promise<unknown>): Promise<string[]> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HookwiseConfigError);
  return (err as HookwiseConfigError).problems;
}

describe('openStoreBackend', () => {
  it('opens the built-in memory store, which has no options of its own', async () => {
    const opened = await openStoreBackend(options({ backend: 'memory' }));
    expect(opened).toMatchObject({ id: 'memory', pluginName: '@hookwise/gateway', plugins: [] });
    await opened.store.close();
    expect(await problemsOf(openStoreBackend(options({ backend: 'memory', path: 'x.sqlite' })))).toEqual(["store: unknown key 'path'"]);
  });

  it('loads a store package named by store.backend from the config dir, with its options validated and defaulted', async () => {
    files({
      'node_modules/acme-store/package.json': { name: 'acme-store', main: 'index.js' },
      'node_modules/acme-store/index.js': STORE_PACKAGE('acme-store', ['acme']),
    });
    const opened = await openStoreBackend(options({ backend: 'acme-store', file: 'a.db' }));
    expect(opened.id).toBe('acme');
    // Registered with the gateway too, like any plugin.
    expect(opened.plugins.map((p) => p.plugin.meta.name)).toEqual(['acme-store']);
    expect((opened.store as unknown as { options: unknown }).options).toEqual({
      backend: 'acme',
      max_pending: 100,
      lease_seconds: 30,
      file: 'a.db',
      shards: 4,
    });
    await opened.store.close();
    expect(await problemsOf(openStoreBackend(options({ backend: 'acme-store', file: 7, shard: 2 })))).toEqual([
      "store: unknown key 'shard'",
      'store.file: must be string',
    ]);
  });

  it('finds the hookwise-plugin-<x> form as the loader does, and uses a store id of a plugin already loaded without loading it twice', async () => {
    files({
      'node_modules/hookwise-plugin-acme/package.json': { name: 'hookwise-plugin-acme', main: 'index.js' },
      'node_modules/hookwise-plugin-acme/index.js': STORE_PACKAGE('hookwise-plugin-acme', ['acme']),
    });
    const byName = await openStoreBackend(options({ backend: 'acme' }));
    // `acme` is no registered id yet, so the loader tried acme, then found hookwise-plugin-acme.
    expect(byName.pluginName).toBe('hookwise-plugin-acme');
    await byName.store.close();
    const plugin = definePlugin({
      meta: { name: 'in-config', version: '1.0.0', api: 2 },
      contributes: [{ kind: 'store', id: 'mine', create: async () => (await import('../../src/stores/memory')).createMemoryStore() }],
    });
    const fromPlugins = await openStoreBackend(options({ backend: 'mine' }, [{ plugin, source: 'in-config', options: {} }]));
    expect(fromPlugins.plugins).toHaveLength(1);
    await fromPlugins.store.close();
  });

  it('says when store.backend is neither a store id nor an installed package, naming the ids it knows', async () => {
    const [problem] = await problemsOf(openStoreBackend(options({ backend: 'postgres' })));
    expect(problem).toMatch(
      /^store\.backend: 'postgres' is no store id \(known: memory\) and no store package that loads: plugin 'postgres' was not found; tried:\n/,
    );
    expect(problem).toContain(`hookwise-plugin-postgres (from ${dir})`);
  });

  it('refuses a package that contributes no store, or several', async () => {
    files({
      'node_modules/not-a-store/package.json': { name: 'not-a-store', main: 'index.js' },
      'node_modules/not-a-store/index.js':
        "module.exports = require('@hookwise/core').definePlugin({ meta: { name: 'not-a-store', version: '1.0.0', api: 2 }, contributes: [{ kind: 'agent', id: 'x', create: () => ({ run: async () => ({ text: '' }) }) }] });",
      'node_modules/two-stores/package.json': { name: 'two-stores', main: 'index.js' },
      'node_modules/two-stores/index.js': STORE_PACKAGE('two-stores', ['a', 'b']),
    });
    expect(await problemsOf(openStoreBackend(options({ backend: 'not-a-store' })))).toEqual([
      "store.backend: not-a-store (loaded for 'not-a-store') contributes no store (it contributes agent:x); name a store package or a store id (memory)",
    ]);
    expect(await problemsOf(openStoreBackend(options({ backend: 'two-stores' })))).toEqual([
      'store.backend: two-stores contributes several stores (a, b); add it to plugins: and set store.backend to one of those ids',
    ]);
  });

  it('names the plugin when its create() throws', async () => {
    const plugin = definePlugin({
      meta: { name: 'flaky-store', version: '1.0.0', api: 2 },
      contributes: [
        {
          kind: 'store',
          id: 'flaky',
          create: () => {
            throw new Error('cannot connect');
          },
        },
      ],
    });
    await expect(openStoreBackend(options({ backend: 'flaky' }, [{ plugin, source: 'flaky-store', options: {} }]))).rejects.toMatchObject({
      plugin: 'flaky-store',
      kind: 'store',
      method: 'create',
    });
  });
});
