// A runner gets its own options only: the keys the gateway reads from an agent block (prompt_hygiene, sandbox,
// max_output_kb, budget, ...) never reach it. `agent: {prompt_hygiene: false}` on a route stopped startup with
// "unknown key 'prompt_hygiene'" for every runner whose options schema is strict (the command runner's is).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { definePlugin } from '@hookwise/core';
import { validateConfigObject } from '../../src/config/load';
import { Gateway } from '../../src/gateway';
import { createLogger } from '../../src/observe/logger';
import { createMemoryStore } from '../../src/stores/memory';

const created: Array<Record<string, unknown>> = [];

const strictRunner = definePlugin({
  meta: { name: 'strict-runner-test', version: '1.0.0', api: 2 },
  contributes: [
    {
      kind: 'agent',
      id: 'strict',
      optionsSchema: { type: 'object', additionalProperties: false, properties: { model: { type: 'string' } } },
      create: (options: Record<string, unknown>) => {
        created.push(options);
        return { run: async () => ({ text: 'ok' }) };
      },
    },
  ],
});

let configDir: string;
let gateway: Gateway | undefined;
beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'hookwise-agent-options-'));
  created.length = 0;
});
afterEach(async () => {
  await gateway?.stop(1000);
  gateway = undefined;
  rmSync(configDir, { recursive: true, force: true });
});

it("starts with the gateway's keys on a route's and the global agent block, and hands the runner only its own", async () => {
  const agent = { runner: 'strict', model: 'm-1', prompt_hygiene: false, max_output_kb: 64, sandbox: { mode: 'off' }, budget: { runs_per_hour: 5 } };
  const config = validateConfigObject({
    platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', routes: { a: { secret: 'INSECURE_NO_AUTH', agent } } } } },
    agent: { runner: 'strict', model: 'm-0', timeout_seconds: 30, concurrency: 1, max_output_kb: 32, sandbox: { mode: 'off' } },
  });
  gateway = new Gateway({
    config,
    configDir,
    store: createMemoryStore(),
    logger: createLogger({ stream: new Writable({ write: (_c, _e, done) => done() }), level: 'error' }),
    plugins: [{ plugin: strictRunner, source: 'in code', options: {} }],
  });
  await gateway.start();
  expect(created).toEqual(expect.arrayContaining([{ model: 'm-1' }]));
  for (const options of created) expect(Object.keys(options)).toEqual(['model']);
});
