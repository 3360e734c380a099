// The finding "the egress proxy never ends a response whose upstream aborts", as it was found: a sandboxed agent
// (the real Codex CLI then, an obedient `command` agent here) reading a streamed response from a host its route
// lists hung until its own idle timeout when the upstream died mid-stream. Through a real gateway, its egress proxy
// and the sandbox's forwarder, the agent now sees the response end with an error at once.
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { probeSandbox } from '@hookwise/sandbox';
import { OBEDIENT_COMMAND, startObedientGateway, type ObedientGateway } from './obedient-gateway';

// Reads a URL through HTTP_PROXY with a 10 s idle timeout (a client's own, as the CLI's was) and prints how the
// response ended and after how long.
const CUT = `
const http = require('http');
const target = process.argv[2];
const proxy = new URL(process.env.HTTP_PROXY);
const started = Date.now();
let said = false;
const say = (how) => { if (!said) { said = true; console.log('cut: ' + how + ' after ' + (Date.now() - started) + ' ms'); } };
const req = http.request({ host: proxy.hostname, port: proxy.port, path: target, timeout: 10000 }, (res) => {
  let body = '';
  res.on('data', (c) => (body += c));
  res.on('error', () => say('error, body ' + body));
  res.on('aborted', () => say('aborted, body ' + body));
  res.on('end', () => say((res.complete ? 'complete' : 'incomplete') + ', body ' + body));
  res.on('close', () => say((res.complete ? 'complete' : 'incomplete') + ', body ' + body));
});
req.on('timeout', () => { say('timeout'); req.destroy(); });
req.on('error', (err) => say('error ' + (err.code || err.message)));
req.end();
`;

let gw: ObedientGateway | undefined;
let upstream: net.Server;
let skip: string | undefined;

beforeAll(async () => {
  // Just enough HTTP: the head of a chunked response and one chunk, then the connection is torn down.
  upstream = net.createServer((socket) => {
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n');
      setTimeout(() => socket.destroy(), 200);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const found = await probeSandbox();
  if (!found.available) {
    skip = found.reason;
    return;
  }
  const port = (upstream.address() as AddressInfo).port;
  gw = await startObedientGateway({
    mode: 'required',
    agent: () => ({ runner: 'command', command: OBEDIENT_COMMAND }),
    network: (listed) => [listed, `127.0.0.1:${port}`],
  });
  writeFileSync(join(dirname(gw.reach), 'cut.js'), CUT);
}, 60_000);
afterAll(async () => {
  await gw?.stop();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

it('a sandboxed agent reading a listed host whose upstream dies mid-stream sees its response end at once', async () => {
  if (skip) return console.warn(`skipped: ${skip}`);
  const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/stream`;
  const text = await gw!.run(`node ${join(dirname(gw!.reach), 'cut.js')} ${target}`);
  const outcome = /cut: (.*) after (\d+) ms/.exec(text);
  expect(outcome).not.toBeNull();
  expect(outcome![1]).not.toBe('timeout');
  expect(outcome![1]).not.toMatch(/^complete/);
  expect(outcome![1]).toContain('hello');
  expect(Number(outcome![2])).toBeLessThan(3000);
}, 60_000);
