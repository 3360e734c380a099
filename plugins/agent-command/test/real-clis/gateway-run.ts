// A real gateway (webhook in, job, worker, agent sandbox) running one preset's real CLI against a model stand-in,
// and a GitHub API stand-in for the route's actions.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { startGateway, type RunningGateway } from '@hookwise/server';
import { loadFirstPartyPlugins } from '@hookwise/cli';
import type { Job } from '@hookwise/core';
import { startRecordingServer, type RecordingServer } from '@hookwise/testing';
import { stringify as stringifyYaml } from 'yaml';
import { CLIS_BIN } from './agent-clis';
import type { ModelStandIn } from './model-stand-ins';

/**
 * What Claude Code needs to start offline: no update check, no telemetry, no other traffic than the model's; and
 * MCP tools offered up front (by default it defers them behind its ToolSearch tool, which a scripted model cannot
 * go through).
 */
export const CLAUDE_OFFLINE = [
  'DISABLE_AUTOUPDATER=1',
  'DISABLE_TELEMETRY=1',
  'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1',
  'DISABLE_ERROR_REPORTING=1',
  'ENABLE_TOOL_SEARCH=false',
];

export interface GatewayRun {
  dir: string;
  home: string;
  logs(): string;
  github: RecordingServer;
  running?: RunningGateway;
  /** Starts the gateway with one route `ci` running `agent` (preset, args, ...) and `route` keys. */
  start(agent: Record<string, unknown>, route?: Record<string, unknown>, env?: Record<string, string>): Promise<RunningGateway>;
  /** Posts `payload` to the route and waits for its job to end (done or dead). */
  post(payload: unknown, id: string): Promise<Job>;
  close(): Promise<void>;
}

export async function gatewayRun(model: ModelStandIn, dataDir: string): Promise<GatewayRun> {
  const dir = mkdtempSync(join(tmpdir(), 'hw-real-cli-config-'));
  // The gateway user's home, where an operator's own ~/.claude and ~/.codex would be.
  const home = mkdtempSync(join(tmpdir(), 'hw-real-cli-home-'));
  mkdirSync(dataDir, { recursive: true });
  const github = await startRecordingServer(() => ({ status: 200, json: [{ name: 'bug' }] }));
  let logs = '';
  const run: GatewayRun = {
    dir,
    home,
    github,
    logs: () => logs,
    async start(agent, route = {}, env = {}) {
      const config = {
        platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', routes: { ci: { secret: 'INSECURE_NO_AUTH', deliver: 'none', ...route } } } } },
        agent: {
          runner: 'command',
          timeout_seconds: 60,
          ...agent,
          // The stand-ins are the only hosts the sandbox lets the CLI reach (through the gateway's egress proxy).
          sandbox: { mode: 'required', network: [model.host, github.url.replace('http://', '')] },
        },
        retry: { max_attempts: 3, base_delay_seconds: 0.05, max_delay_seconds: 0.1 },
        store: { backend: 'memory' },
      };
      writeFileSync(join(dir, 'config.yaml'), stringifyYaml(config));
      const stream = new PassThrough();
      stream.on('data', (c: Buffer) => (logs += c.toString('utf8')));
      run.running = await startGateway({
        firstParty: await loadFirstPartyPlugins(),
        configDir: dir,
        env: {
          // The CLIs as a user's PATH has them, then the system.
          PATH: [CLIS_BIN, '/usr/bin', '/bin'].join(':'),
          HOME: home,
          HOOKWISE_DATA_DIR: dataDir,
          ANTHROPIC_BASE_URL: model.url,
          ANTHROPIC_API_KEY: 'sk-ant-standin-key-1234567890',
          OPENAI_BASE_URL: `${model.url}/v1`,
          CODEX_API_KEY: 'sk-codex-standin-key-1234567890',
          GH_TOKEN: 'ghp_standin_token_1234567890',
          GITHUB_API_URL: github.url,
          ...env,
        },
        port: 0,
        logStream: stream,
        pollMs: 25,
      });
      return run.running;
    },
    async post(payload, id) {
      const gw = run.running!;
      const res = await fetch(`${gw.url}/webhooks/ci`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': id },
        body: JSON.stringify(payload),
      });
      if (res.status !== 202) throw new Error(`the webhook answered ${res.status}: ${await res.text()}`);
      for (let i = 0; i < 2400; i++) {
        const job = (await gw.gateway.store.jobs.list({ limit: 50 })).find((j) => j.deliveryId === id);
        if (job && (job.status === 'done' || job.status === 'dead')) return job;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`the job did not end; log:\n${logs}`);
    },
    async close() {
      await run.running?.close(1000);
      await github.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    },
  };
  return run;
}
