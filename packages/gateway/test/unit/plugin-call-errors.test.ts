// Every plugin instance the registry creates names the plugin, kind and method in the errors its calls throw or
// reject with. The wrapper of each method is made once and reused (the request path reads a source's methods
// several times per request); these check that reuse changes nothing a caller can see.
import { definePlugin, isHookwiseError, type Source, type SourceRequest } from '@hookwise/core';
import { PluginRegistry } from '../../src/plugins/registry';
import { createLogger } from '../../src/observe/logger';

interface TestSource extends Source {
  ping(): Promise<string>;
}

function registryWith(create: () => TestSource): PluginRegistry {
  const plugin = definePlugin({
    meta: { name: 'test-source-plugin', version: '1.0.0', api: 2 },
    contributes: [{ kind: 'source', id: 'probe', create }],
  });
  return new PluginRegistry([{ plugin, source: 'test', options: {} }]);
}

const ctx = () => ({
  logger: createLogger({ silent: true }),
  configDir: '/nonexistent',
  env: {},
  signal: new AbortController().signal,
  redact: () => undefined,
});

const request: SourceRequest = { headers: {}, rawBody: Buffer.from('{}'), url: 'http://localhost/webhooks/x', receivedAt: 0 };

describe('plugin instances: errors carry plugin, kind and method', () => {
  it('tags a thrown error and a rejection, on every call, through the reused wrapper', async () => {
    let calls = 0;
    const source = (await registryWith(() => ({
      headers: ['x-probe'],
      verify() {
        calls += 1;
        throw new Error(`bad key ${calls}`);
      },
      async ping() {
        throw new Error('unreachable');
      },
    })).create('source', 'probe', {}, ctx())) as TestSource;

    // The same wrapper each time a method is read, and a plain value passed through.
    expect(source.verify).toBe(source.verify);
    expect(source.headers).toEqual(['x-probe']);
    for (const n of [1, 2]) {
      let caught: unknown;
      try {
        source.verify(request, ['s']);
      } catch (err) {
        caught = err;
      }
      expect(isHookwiseError(caught)).toBe(true);
      expect(caught).toMatchObject({ code: 'HW_E_PLUGIN_CALL', plugin: 'test-source-plugin', kind: 'source', method: 'verify' });
      expect((caught as Error).message).toContain(`failed in verify(): bad key ${n}`);
    }
    await expect(source.ping()).rejects.toMatchObject({ code: 'HW_E_PLUGIN_CALL', method: 'ping', message: expect.stringContaining('unreachable') });
  });

  it('calls the method the instance holds now, and with the instance as `this`', async () => {
    const created = {
      headers: ['x-probe'],
      prefix: 'first',
      verify(this: { prefix: string }) {
        return { ok: false as const, reason: `${this.prefix} verdict` };
      },
      async ping(this: { prefix: string }) {
        return this.prefix;
      },
    };
    const source = (await registryWith(() => created).create('source', 'probe', {}, ctx())) as TestSource;
    expect(source.verify(request, [])).toEqual({ ok: false, reason: 'first verdict' });
    created.prefix = 'second';
    await expect(source.ping()).resolves.toBe('second');
    // A plugin that swaps a method after creation is called through its new one, still tagged.
    created.verify = function () {
      throw new Error('swapped');
    };
    expect(() => source.verify(request, [])).toThrow(expect.objectContaining({ method: 'verify', message: expect.stringContaining('swapped') }));
  });
});
