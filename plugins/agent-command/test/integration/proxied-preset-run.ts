// One preset run behind the gateway's model proxy, in a real gateway and its bubblewrap sandbox (sandbox required):
// the CLI is a stand-in script (the preset with `command:` replaced), the provider a scripted upstream on port 0 that
// records what reaches it. For the tests of a preset whose real CLI is not installed here.
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from '@hookwise/core';
import { gatewayOnce, type GatewayOnce } from './gateway-once';

/**
 * Source for a stand-in CLI: `post(url, headers, body, done)` sends one POST as a client library does inside the
 * sandbox, through its egress proxy (http_proxy), and calls `done(status, text)` with the whole response.
 */
export const STAND_IN_POST = `
function post(url, headers, body, done) {
  const target = new URL(url);
  const via = process.env.http_proxy || process.env.HTTP_PROXY;
  const proxy = via ? new URL(via) : target;
  const req = require('http').request({ host: proxy.hostname, port: proxy.port, path: via ? target.href : target.pathname + target.search, method: 'POST',
    headers: { 'content-type': 'application/json', ...headers, host: target.host } }, (res) => {
    let text = '';
    res.on('data', (c) => (text += c));
    res.on('end', () => done(res.statusCode, text));
  });
  req.end(body);
}
`;

export interface UpstreamRequest {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface ProxiedPresetRun {
  /** The route's private homes live under it (HOOKWISE_DATA_DIR). */
  data: string;
  /** What reached the upstream, in order. */
  received: UpstreamRequest[];
  /**
   * Runs `preset` once with `script` as its CLI; `provider` (anthropic | openai | gemini) has the upstream as its
   * base_url; `env` is the gateway's whole environment besides PATH and HOOKWISE_DATA_DIR.
   */
  run(preset: string, script: string, provider: string, env: Record<string, string>): Promise<Job>;
}

/** Sets up a fresh run per test (call at the top of a test file); `answer` writes the upstream's response. */
export function useProxiedPresetRun(name: string, answer: (res: http.ServerResponse, req: UpstreamRequest) => void): ProxiedPresetRun {
  let dirs: string[] = [];
  let gateway: GatewayOnce | undefined;
  let upstream: http.Server;
  const fixture: ProxiedPresetRun = {
    data: '',
    received: [],
    async run(preset, script, provider, env) {
      const [dir, tools] = dirs;
      const cli = join(tools, `${preset}.js`);
      writeFileSync(cli, script);
      const config = {
        platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', routes: { ci: { secret: 'INSECURE_NO_AUTH' } } } } },
        agent: {
          runner: 'command',
          preset,
          command: [process.execPath, cli],
          sandbox: { mode: 'required', read_only: [tools] },
          model_proxy: { providers: { [provider]: { base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` } } },
        },
        retry: { max_attempts: 1 },
        store: { backend: 'memory' },
      };
      gateway = await gatewayOnce(dir, config, { PATH: process.env.PATH, HOOKWISE_DATA_DIR: fixture.data, ...env });
      return gateway.post(`${preset}-1`);
    },
  };

  beforeEach(async () => {
    dirs = ['config', 'tools', 'data'].map((what) => mkdtempSync(join(tmpdir(), `hw-${name}-${what}-`)));
    fixture.data = dirs[2];
    fixture.received.length = 0;
    upstream = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const request = { url: req.url ?? '', headers: req.headers, body };
        fixture.received.push(request);
        answer(res, request);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  });

  afterEach(async () => {
    await gateway?.running.close(1000);
    gateway = undefined;
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  return fixture;
}
