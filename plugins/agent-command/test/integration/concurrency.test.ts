// agent.concurrency bounds simultaneous command runs: queued jobs wait, the HTTP side answers 202 at once.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { startGateway, type RunningGateway } from '@hookwise/server';
import { distributionOptions } from '@hookwise/cli';
import { stringify as stringifyYaml } from 'yaml';

let dir: string;
let tools: string;
let running: RunningGateway | undefined;

afterEach(async () => {
  await running?.close(1000);
  running = undefined;
  rmSync(dir, { recursive: true, force: true });
  rmSync(tools, { recursive: true, force: true });
});

it('never runs more agent commands at once than agent.concurrency, and runs every queued job', async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-concurrency-'));
  // Outside the config dir, which the sandboxed agent never sees; listed as writable for it.
  tools = mkdtempSync(join(tmpdir(), 'hw-concurrency-tools-'));
  const busy = join(tools, 'busy');
  mkdirSync(busy);
  const seenFile = join(tools, 'seen.log');
  // Each run marks itself busy (by delivery id: in its sandbox every run has the same pid), records how many runs it sees, works a little, and unmarks itself before exiting.
  const agent = join(tools, 'agent.js');
  writeFileSync(
    agent,
    `const fs = require('fs'); const path = require('path');
     const me = path.join(${JSON.stringify(busy)}, process.env.HOOKWISE_DELIVERY_ID);
     fs.writeFileSync(me, '');
     fs.appendFileSync(${JSON.stringify(seenFile)}, fs.readdirSync(${JSON.stringify(busy)}).length + '\\n');
     setTimeout(() => { fs.rmSync(me); process.stdout.write('done ' + process.env.HOOKWISE_DELIVERY_ID); }, 300);`,
  );
  const config = {
    platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', routes: { jobs: { secret: 'INSECURE_NO_AUTH' } } } } },
    agent: { runner: 'command', command: [process.execPath, agent], concurrency: 2, sandbox: { writable: [tools] } },
    store: { backend: 'memory' },
  };
  writeFileSync(join(dir, 'config.yaml'), stringifyYaml(config));
  let logs = '';
  const stream = new PassThrough();
  stream.on('data', (c: Buffer) => (logs += c.toString('utf8')));
  running = await startGateway({
    ...(await distributionOptions()),
    configDir: dir,
    env: { PATH: process.env.PATH },
    port: 0,
    logStream: stream,
    pollMs: 50,
  });

  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${running.url}/webhooks/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': `job-${i}` },
      body: JSON.stringify({ n: i }),
    });
    statuses.push(res.status);
  }
  expect(statuses).toEqual([202, 202, 202, 202, 202]);

  for (let i = 0; i < 400 && (logs.match(/delivered job-/g) ?? []).length < 5; i++) await new Promise((r) => setTimeout(r, 25));
  for (let i = 0; i < 5; i++) expect(logs).toContain(`done job-${i}`);
  const seen = readFileSync(seenFile, 'utf8').trim().split('\n').map(Number);
  expect(seen).toHaveLength(5);
  expect(Math.max(...seen)).toBe(2);
});
