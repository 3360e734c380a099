// The gemini preset behind the gateway's model proxy, in a real gateway and its bubblewrap sandbox: the CLI (a
// stand-in for Gemini CLI, the preset with `command:` replaced) gets the proxy's URL as GOOGLE_GEMINI_BASE_URL and the
// run's token as GEMINI_API_KEY, never the gateway's key, and a system settings file selecting the CLI's API-key
// mode; its streamed call reaches a scripted Gemini API with the real key, and the job records the call's usage and
// cost. The real Gemini CLI is not installed here.
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatewayOnce, type GatewayOnce } from './gateway-once';

const KEY = 'AIzaSy-gateway-gemini-key-0123456789';
const USAGE = { promptTokenCount: 1200, candidatesTokenCount: 250, cachedContentTokenCount: 800, thoughtsTokenCount: 150, totalTokenCount: 1600 };

let dir: string;
let tools: string;
let data: string;
let gateway: GatewayOnce | undefined;
let google: http.Server;
const received: Array<{ url: string; headers: http.IncomingHttpHeaders; body: string }> = [];

// What the CLI sees and does: its environment and settings file, then one streamed call as Google's SDK makes it
// (through the sandbox's egress proxy), answering in Gemini CLI's JSON output.
const AGENT = `
const fs = require('fs');
const http = require('http');
process.stdin.resume();
process.stdin.on('end', () => {
  const e = process.env;
  const target = new URL(e.GOOGLE_GEMINI_BASE_URL + '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  const proxy = e.http_proxy || e.HTTP_PROXY ? new URL(e.http_proxy || e.HTTP_PROXY) : target;
  const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
  const req = http.request({ host: proxy.hostname, port: proxy.port, path: proxy === target ? target.pathname + target.search : target.href, method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': e.GEMINI_API_KEY, host: target.host } }, (res) => {
    let text = '';
    res.on('data', (c) => (text += c));
    res.on('end', () => {
      const seen = { env: e, settings: fs.readFileSync(e.GEMINI_CLI_SYSTEM_SETTINGS_PATH, 'utf8'), status: res.statusCode, stream: text };
      process.stdout.write(JSON.stringify({ response: JSON.stringify(seen), stats: { models: {} } }));
    });
  });
  req.end(body);
});
`;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-gemini-config-'));
  tools = mkdtempSync(join(tmpdir(), 'hw-gemini-tools-'));
  data = mkdtempSync(join(tmpdir(), 'hw-gemini-data-'));
  received.length = 0;
  google = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body });
      const chunk = (text: string, usageMetadata: object, finishReason?: string) =>
        `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text }], role: 'model' }, ...(finishReason && { finishReason }), index: 0 }], usageMetadata, modelVersion: 'gemini-2.5-flash' })}\r\n\r\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk('Hello from ', { promptTokenCount: 1200, totalTokenCount: 1203, candidatesTokenCount: 3 }));
      res.end(chunk('the stand-in', USAGE, 'STOP'));
    });
  });
  await new Promise<void>((resolve) => google.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  await gateway?.running.close(1000);
  gateway = undefined;
  await new Promise<void>((resolve) => google.close(() => resolve()));
  for (const d of [dir, tools, data]) rmSync(d, { recursive: true, force: true });
});

it("runs the gemini preset on the model proxy: the CLI holds the proxy's URL and token, Google gets the real key, the job its usage and cost", async () => {
  const script = join(tools, 'gemini.js');
  writeFileSync(script, AGENT);
  const upstream = `http://127.0.0.1:${(google.address() as AddressInfo).port}`;
  const config = {
    platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', routes: { ci: { secret: 'INSECURE_NO_AUTH' } } } } },
    agent: {
      runner: 'command',
      preset: 'gemini',
      command: [process.execPath, script],
      sandbox: { mode: 'required', read_only: [tools] },
      model_proxy: { providers: { gemini: { base_url: upstream } } },
    },
    retry: { max_attempts: 1 },
    store: { backend: 'memory' },
  };
  gateway = await gatewayOnce(dir, config, { PATH: process.env.PATH, HOOKWISE_DATA_DIR: data, GEMINI_API_KEY: KEY, GOOGLE_API_KEY: KEY });
  const job = await gateway.post('gemini-1');
  expect(job.status).toBe('done');
  const seen = JSON.parse(job.answer!) as { env: Record<string, string>; settings: string; status: number; stream: string };
  expect(seen.status).toBe(200);
  expect(seen.stream).toContain('the stand-in');
  expect(JSON.stringify(seen.env)).not.toContain(KEY);
  expect(seen.env.GOOGLE_API_KEY).toBeUndefined();
  expect(seen.env.GOOGLE_GEMINI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(seen.env.GEMINI_API_KEY).toBe(seen.env.HOOKWISE_MODEL_PROXY_TOKEN);
  expect(seen.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH).toBe(join(data, 'agent-homes', 'ci', 'gemini', '.hookwise', 'gemini-system-settings.json'));
  expect(JSON.parse(seen.settings)).toEqual({ security: { auth: { selectedType: 'gemini-api-key' } } });
  expect(received).toHaveLength(1);
  expect(received[0].url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  expect(received[0].headers['x-goog-api-key']).toBe(KEY);
  expect(JSON.parse(received[0].body)).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
  expect(job.usage).toMatchObject({
    inputTokens: 1200,
    outputTokens: 400,
    cachedInputTokens: 800,
    modelCalls: 1,
    costUsd: Math.round(((400 * 0.3 + 800 * 0.03 + 400 * 2.5) / 1e6) * 1e6) / 1e6,
  });
});
