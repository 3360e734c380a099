// An upstream that dies mid-response: the client behind the egress proxy must see its response end with an
// error at once, not wait for its own idle timeout on a response that will never finish.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { EgressProxy } from '../../src';

let proxy: EgressProxy;
let upstream: net.Server;
let port: number;

beforeAll(async () => {
  proxy = await EgressProxy.start();
  // Speaks just enough HTTP: headers of a chunked response and one chunk, then the connection is torn down.
  upstream = net.createServer((socket) => {
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n');
      setTimeout(() => socket.destroy(), 100);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  port = (upstream.address() as AddressInfo).port;
});
afterAll(async () => {
  await proxy.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

test('a plain-http response cut by the upstream mid-stream ends the client response promptly, with an error', async () => {
  const lease = await proxy.openJob('abort', [`127.0.0.1:${port}`]);
  const started = Date.now();
  const outcome = await new Promise<{ status?: number; body: string; ended: string }>((resolve) => {
    let body = '';
    let status: number | undefined;
    const timer = setTimeout(() => resolve({ status, body, ended: 'still waiting after 5 s' }), 5000);
    const done = (ended: string) => {
      clearTimeout(timer);
      resolve({ status, body, ended });
    };
    http
      .get({ socketPath: lease.socketPath, path: `http://127.0.0.1:${port}/stream` }, (res) => {
        status = res.statusCode;
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => done(res.complete ? 'complete' : 'incomplete'));
        res.on('error', () => done('error'));
        res.on('close', () => done(res.complete ? 'complete' : 'incomplete'));
      })
      .on('error', () => done('error'));
  });
  expect(outcome.status).toBe(200);
  expect(outcome.body).toBe('hello');
  expect(['error', 'incomplete']).toContain(outcome.ended);
  expect(Date.now() - started).toBeLessThan(2000);
  await lease.close();
});
