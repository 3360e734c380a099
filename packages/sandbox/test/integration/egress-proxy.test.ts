// The egress proxy spoken to directly over its unix socket, as the in-sandbox forwarder does.
import http from 'node:http';
import net from 'node:net';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { statSync } from 'node:fs';
import { EgressProxy, addressAllowed, isInternalAddress, parseNetworkList, type EgressLease } from '../../src';
import { serve, type Served } from '../helpers';

let proxy: EgressProxy;
let server: Served;
const warnings: string[] = [];

beforeAll(async () => {
  proxy = await EgressProxy.start({ logger: { warn: (message, meta) => warnings.push(`${message} ${JSON.stringify(meta)}`) } });
  server = await serve('upstream');
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

/** A plain-http request in absolute form through the lease's socket. */
function viaProxy(lease: EgressLease, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ socketPath: lease.socketPath, path: url, headers: { 'proxy-authorization': 'Basic c2VjcmV0' } }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: body.trim() }));
      })
      .on('error', reject);
  });
}

/** CONNECT through the socket, then one HTTP request over the tunnel; answers the first line seen. */
function tunnel(lease: EgressLease, authority: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(lease.socketPath, () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    let seen = '';
    let established = false;
    socket.on('data', (chunk) => {
      seen += chunk.toString();
      if (!established && seen.startsWith('HTTP/1.1 200')) {
        established = true;
        seen = '';
        socket.write(`GET /through-tunnel HTTP/1.1\r\nHost: ${authority}\r\nConnection: close\r\n\r\n`);
      }
    });
    socket.on('end', () => resolve(established ? `tunnel: ${seen.split('\r\n\r\n')[1]}` : seen));
    socket.on('error', reject);
  });
}

test('each run gets its own 0600 socket in a 0700 directory', async () => {
  const lease = await proxy.openJob('job-1', []);
  expect(statSync(proxy.dir).mode & 0o777).toBe(0o700);
  expect(statSync(lease.socketPath).mode & 0o777).toBe(0o600);
  await lease.close();
});

test('lets a listed host:port through (plain http and CONNECT), passes redirects back without following them', async () => {
  const lease = await proxy.openJob('job-2', [`127.0.0.1:${server.port}`]);
  expect(await viaProxy(lease, `http://127.0.0.1:${server.port}/a?b=1`)).toEqual({ status: 200, body: 'upstream saw /a?b=1' });
  expect(await tunnel(lease, `127.0.0.1:${server.port}`)).toBe('tunnel: upstream saw /through-tunnel');
  await lease.close();
});

test('refuses an unlisted host or port with 403 and a clear text, logging the host but never the path, query or headers', async () => {
  const lease = await proxy.openJob('job-3', [`127.0.0.1:${server.port + 1}`]);
  warnings.length = 0;
  const refused = await viaProxy(lease, `http://127.0.0.1:${server.port}/steal?token=abc123`);
  expect(refused.status).toBe(403);
  expect(refused.body).toBe(`hookwise sandbox proxy: refused: 127.0.0.1:${server.port} is not in this route's agent.sandbox.network list`);
  expect(await tunnel(lease, `example.org:443`)).toContain('HTTP/1.1 403 Forbidden');
  expect(server.requests).not.toContain('GET /steal?token=abc123');
  expect(warnings).toHaveLength(2);
  expect(warnings[0]).toContain(`"job":"job-3","host":"127.0.0.1","port":${server.port}`);
  expect(warnings.join('\n')).not.toMatch(/steal|abc123|c2VjcmV0/);
  await lease.close();
});

test('a listed name that resolves to loopback is refused unless its address is listed too (DNS rebinding)', async () => {
  // This machine's own name resolves to a loopback or private address on most hosts (/etc/hosts); it stands in
  // for a public name an attacker pointed at 127.0.0.1.
  const name = hostname();
  const addresses = (await lookup(name, { all: true })).map((entry) => entry.address);
  expect(addresses.some(isInternalAddress)).toBe(true);
  const named = await proxy.openJob('job-4', [name]);
  const refused = await viaProxy(named, `http://${name}:${server.port}/rebound`);
  expect(refused.status).toBe(403);
  expect(refused.body).toContain(`${name} resolves to an internal address`);
  await named.close();
  const both = await proxy.openJob('job-5', [name, '127.0.0.1']);
  expect((await viaProxy(both, `http://${name}:${server.port}/listed`)).status).toBe(200);
  await both.close();
});

test('localhost listed reaches loopback; a closed run socket is gone', async () => {
  const lease = await proxy.openJob('job-6', ['localhost']);
  expect(await viaProxy(lease, `http://localhost:${server.port}/local`)).toEqual({ status: 200, body: 'upstream saw /local' });
  await lease.close();
  await expect(viaProxy(lease, `http://localhost:${server.port}/after`)).rejects.toThrow(/ENOENT/);
});

describe('network rules', () => {
  test('parses host and host:port entries, IPv6 in brackets, case and trailing dots ignored', () => {
    expect(parseNetworkList(['API.Anthropic.com.', 'example.org:8443', '[::1]:8080', '10.0.0.5'])).toEqual([
      { host: 'api.anthropic.com', port: undefined },
      { host: 'example.org', port: 8443 },
      { host: '::1', port: 8080 },
      { host: '10.0.0.5', port: undefined },
    ]);
  });

  test('refuses URLs, wildcards, bad ports and empty entries, listing each', () => {
    expect(() => parseNetworkList(['https://x.org/', '*.x.org', 'x.org:0', ''], "route 'ci' agent.sandbox.network")).toThrow(
      /route 'ci' agent.sandbox.network\[0\] 'https:\/\/x.org\/' is not a host[\s\S]*\[1\] '\*.x.org' is not a host[\s\S]*\[2\] 'x.org:0' has port '0': use 1-65535[\s\S]*\[3\] '' is empty/,
    );
  });

  test('internal addresses: loopback, private, link-local (cloud metadata), IPv4-mapped', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '::1', 'fd00::1', '::ffff:127.0.0.1', '0.0.0.0'])
      expect([address, isInternalAddress(address)]).toEqual([address, true]);
    for (const address of ['93.184.216.34', '2606:4700::1111']) expect([address, isInternalAddress(address)]).toEqual([address, false]);
  });

  test('an internal address is allowed for the rule naming it, localhost, or an address listed itself', () => {
    const rules = parseNetworkList(['api.example.com', 'localhost', '10.0.0.5:443']);
    expect(addressAllowed(rules, rules[0], '93.184.216.34', 443)).toBe(true);
    expect(addressAllowed(rules, rules[0], '127.0.0.1', 443)).toBe(false);
    expect(addressAllowed(rules, rules[0], '169.254.169.254', 80)).toBe(false);
    expect(addressAllowed(rules, rules[0], '10.0.0.5', 443)).toBe(true);
    expect(addressAllowed(rules, rules[0], '10.0.0.5', 80)).toBe(false);
    expect(addressAllowed(rules, rules[1], '::1', 80)).toBe(true);
  });
});

test('caps the tunnels one run holds at once: one more is answered 503 with a clear text, and a freed slot works again', async () => {
  const capped = await EgressProxy.start({ maxTunnelsPerRun: 2, logger: { warn: (message, meta) => warnings.push(`${message} ${JSON.stringify(meta)}`) } });
  const lease = await capped.openJob('job-cap', [`127.0.0.1:${server.port}`]);
  const other = await capped.openJob('job-other', [`127.0.0.1:${server.port}`]);
  /** A CONNECT left open: resolves with the proxy's status line and the socket. */
  const open = (l: EgressLease) =>
    new Promise<{ line: string; text: string; socket: net.Socket }>((resolve, reject) => {
      const socket = net.connect(l.socketPath, () => socket.write(`CONNECT 127.0.0.1:${server.port} HTTP/1.1\r\nHost: x\r\n\r\n`));
      socket.once('data', (chunk) => {
        const text = chunk.toString();
        resolve({ line: text.split('\r\n')[0], text, socket });
      });
      socket.on('error', reject);
    });
  try {
    warnings.length = 0;
    const first = await open(lease);
    const second = await open(lease);
    expect([first.line, second.line]).toEqual(['HTTP/1.1 200 Connection Established', 'HTTP/1.1 200 Connection Established']);
    const third = await open(lease);
    expect(third.line).toBe('HTTP/1.1 503 Service Unavailable');
    expect(third.text).toContain('Retry-After: 5');
    expect(third.text).toContain('hookwise sandbox proxy: this run already holds 2 connections through the proxy (the per-run limit); close some and retry');
    expect(warnings.join('\n')).toContain('"job":"job-cap"');
    // A plain request over the limit is refused the same way.
    expect(await viaProxy(lease, `http://127.0.0.1:${server.port}/over`)).toMatchObject({ status: 503 });
    // One warning per run, however often it knocks.
    expect(warnings.filter((w) => w.includes('connections through the proxy'))).toHaveLength(1);
    // Another run's limit is its own.
    const elsewhere = await open(other);
    expect(elsewhere.line).toBe('HTTP/1.1 200 Connection Established');
    elsewhere.socket.destroy();
    // Closing a tunnel frees its slot.
    first.socket.destroy();
    await new Promise((r) => setTimeout(r, 50));
    const again = await open(lease);
    expect(again.line).toBe('HTTP/1.1 200 Connection Established');
    for (const one of [second, third, again]) one.socket.destroy();
  } finally {
    await capped.close();
  }
});
