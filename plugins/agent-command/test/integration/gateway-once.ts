// A real gateway (distribution plugins, memory store) on one config, and one webhook posted to its route `ci`
// until the job ends: for the tests that watch what one agent run could do.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { startGateway, type RunningGateway } from '@hookwise/server';
import { distributionOptions } from '@hookwise/cli';
import type { Job } from '@hookwise/core';
import { stringify as stringifyYaml } from 'yaml';

export interface GatewayOnce {
  running: RunningGateway;
  logs(): string;
  /** Posts `{}` to /webhooks/ci with delivery id `id` and resolves with its job once done or dead. */
  post(id: string): Promise<Job>;
}

/** Writes `config` as `dir`/config.yaml and starts the gateway with `env` as its whole environment. */
export async function gatewayOnce(dir: string, config: Record<string, unknown>, env: Record<string, string | undefined>): Promise<GatewayOnce> {
  writeFileSync(join(dir, 'config.yaml'), stringifyYaml(config));
  let logs = '';
  const stream = new PassThrough();
  stream.on('data', (c: Buffer) => (logs += c.toString('utf8')));
  const running = await startGateway({ ...(await distributionOptions()), configDir: dir, env, port: 0, logStream: stream, pollMs: 25 });
  return {
    running,
    logs: () => logs,
    async post(id) {
      const res = await fetch(`${running.url}/webhooks/ci`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': id },
        body: '{}',
      });
      if (res.status !== 202) throw new Error(`the webhook answered ${res.status}: ${await res.text()}`);
      for (let i = 0; i < 400; i++) {
        const job = (await running.gateway.store.jobs.list({ limit: 20 })).find((j) => j.deliveryId === id);
        if (job?.status === 'done' || job?.status === 'dead') return job;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`the job did not finish; log:\n${logs}`);
    },
  };
}
