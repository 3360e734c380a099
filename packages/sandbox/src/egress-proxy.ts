// The egress proxy: the only way out of a sandbox's network namespace. One per gateway, owning a private
// directory (0700); each run gets its own unix socket (0600) in it, bound to that run's allowlist, so a run
// can only ever use its own policy and nothing needs to identify the caller. Inside the sandbox a forwarder
// (./forwarder) exposes the socket as 127.0.0.1:<port> for the usual proxy variables.
//
// It speaks HTTP proxy: CONNECT host:port for https (and any TCP), absolute-form requests for plain http. It
// resolves the host itself, checks every address against the rule (./network-rules: DNS rebinding), connects
// to the address it checked, and never follows redirects (a 3xx goes back to the client as it is).
import { mkdtemp, chmod, rm } from 'node:fs/promises';
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { addressAllowed, findRule, parseNetworkList, type NetworkRule } from './network-rules';
import { reachesListener, type RefusedListener } from './refused-listeners';
import { fdExhaustionOf } from './fd-exhaustion';

/** What the proxy logs through: the gateway's logger fits. */
export interface EgressLogger {
  warn(message: string, meta?: Record<string, unknown>): unknown;
}

export interface EgressProxyOptions {
  logger?: EgressLogger;
  /** Where the private directory is created; default os.tmpdir(). */
  parentDir?: string;
  /** How long a connection to an allowed host may take to open. Default 10 s. */
  connectTimeoutMs?: number;
  /**
   * The owner's own listeners (host and port as bound), refused to every run even when its network list names
   * the host (`localhost`, `127.0.0.1`). More can be added later with refuse().
   */
  refuse?: readonly RefusedListener[];
  /**
   * Tunnels and forwarded requests one run may hold open at once (each costs the gateway two file descriptors);
   * more are answered 503. Default 64. A run's idle connections to its socket are bounded at twice this.
   */
  maxTunnelsPerRun?: number;
}

export const DEFAULT_MAX_TUNNELS_PER_RUN = 64;

/** One run's way out: its socket and the rules behind it. */
export interface EgressLease {
  readonly label: string;
  /** The unix socket to bind into the sandbox. */
  readonly socketPath: string;
  readonly rules: readonly NetworkRule[];
  /** Stops accepting and cuts the run's open connections. */
  close(): Promise<void>;
}

type Decision = { address: string; port: number } | { status: number; text: string };

// Headers meant for the proxy or for one hop only: never sent on to the host.
const HOP_HEADERS = new Set(['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade']);

export class EgressProxy {
  private readonly leases = new Set<EgressLease>();
  private readonly refused: RefusedListener[] = [];
  private fdWarnedAt = 0;

  private constructor(
    /** The private directory holding the runs' sockets. */
    readonly dir: string,
    private readonly options: EgressProxyOptions,
  ) {
    this.refuse(options.refuse ?? []);
  }

  /** Adds listeners no run may reach (a server that started after the proxy): applies to open runs too. */
  refuse(listeners: readonly RefusedListener[]): void {
    for (const { host, port } of listeners) this.refused.push({ host, port });
  }

  static async start(options: EgressProxyOptions = {}): Promise<EgressProxy> {
    const dir = await mkdtemp(join(options.parentDir ?? tmpdir(), 'hookwise-egress-'));
    await chmod(dir, 0o700);
    return new EgressProxy(dir, options);
  }

  /**
   * Opens a socket for one run that lets through only `network` ("host" or "host:port" entries, or rules
   * already parsed). `label` (job id, route) appears in refusal log lines.
   */
  async openJob(label: string, network: readonly string[] | readonly NetworkRule[]): Promise<EgressLease> {
    const rules = network.map((entry) => (typeof entry === 'string' ? parseNetworkList([entry])[0] : entry));
    const socketPath = join(this.dir, `${randomBytes(8).toString('hex')}.sock`);
    const sockets = new Set<net.Socket>();
    const server = http.createServer();
    const limit = this.options.maxTunnelsPerRun ?? DEFAULT_MAX_TUNNELS_PER_RUN;
    // Beyond this the kernel's accept is answered by a close: an agent cannot hold the gateway's fds with idle sockets.
    server.maxConnections = 2 * limit;
    const slots = new RunSlots(limit);
    server.on('connection', (socket: net.Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    server.on('request', (req, res) => {
      if (!slots.take(res)) return void answer(res, 503, this.overLimit(label, limit, slots));
      void this.forwardRequest(label, rules, req, res, sockets);
    });
    server.on('connect', (req, socket: net.Socket, head) => {
      if (!slots.take(socket)) return void endRaw(socket, 503, this.overLimit(label, limit, slots));
      void this.tunnel(label, rules, req, socket, head, sockets);
    });
    server.on('clientError', (_err, socket: net.Socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve());
    });
    await chmod(socketPath, 0o600);
    const lease: EgressLease = {
      label,
      socketPath,
      rules,
      close: async () => {
        if (!this.leases.delete(lease)) return;
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await rm(socketPath, { force: true });
      },
    };
    this.leases.add(lease);
    return lease;
  }

  /** Closes every run's socket and removes the directory. */
  async close(): Promise<void> {
    await Promise.all([...this.leases].map((lease) => lease.close()));
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Checks the host against the rules, resolves it and picks an address the rule allows. */
  private async decide(label: string, rules: readonly NetworkRule[], host: string, port: number): Promise<Decision> {
    const rule = findRule(rules, host, port);
    if (!rule) return this.refusal(label, host, port, `${host}:${port} is not in this route's agent.sandbox.network list`);
    let addresses: string[];
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch (error) {
      return { status: 502, text: `hookwise sandbox proxy: cannot resolve ${host} (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
    }
    // The gateway's own listeners first: a listed loopback host must not lead to its admin API.
    const listener = addresses.map((candidate) => reachesListener(this.refused, candidate, port)).find(Boolean);
    if (listener)
      return this.refusal(label, host, port, `${host}:${port} is the gateway's own listener (${listener.host}:${listener.port}), which no agent may reach`);
    const address = addresses.find((candidate) => addressAllowed(rules, rule, candidate, port));
    if (address === undefined)
      return this.refusal(label, host, port, `${host} resolves to an internal address (${addresses.join(', ')}) that the network list does not name`);
    return { address, port };
  }

  /** The text for the agent when connecting failed for want of file descriptors (logged), else undefined. */
  private outOfFds(label: string, error: unknown): string | undefined {
    const code = fdExhaustionOf(error);
    if (!code) return undefined;
    // At most once a minute: while descriptors are short every connect fails, and the log would take the rest.
    if (Date.now() - this.fdWarnedAt >= 60_000) {
      this.fdWarnedAt = Date.now();
      this.options.logger?.warn(`sandbox egress: the gateway is out of file descriptors (${code}); a connection was refused`, { job: label });
    }
    return `hookwise sandbox proxy: the gateway is out of file descriptors (${code}); retry later`;
  }

  private overLimit(label: string, limit: number, slots: RunSlots): string {
    // Once per run: an agent retrying in a loop must not flood the log.
    if (slots.refusals++ === 0)
      this.options.logger?.warn(`sandbox egress refused: the run already holds ${limit} connections through the proxy`, { job: label });
    return `hookwise sandbox proxy: this run already holds ${limit} connections through the proxy (the per-run limit); close some and retry`;
  }

  private refusal(label: string, host: string, port: number, why: string): Decision {
    // Host and port only: a URL's path and query, and headers, can carry secrets.
    this.options.logger?.warn(`sandbox egress refused: ${why}`, { job: label, host, port });
    return { status: 403, text: `hookwise sandbox proxy: refused: ${why}` };
  }

  private async tunnel(
    label: string,
    rules: readonly NetworkRule[],
    req: http.IncomingMessage,
    client: net.Socket,
    head: Buffer,
    sockets: Set<net.Socket>,
  ): Promise<void> {
    client.on('error', () => client.destroy());
    const target = parseAuthority(req.url ?? '');
    if (!target) return void endRaw(client, 400, 'hookwise sandbox proxy: CONNECT needs host:port');
    const decision = await this.decide(label, rules, target.host, target.port);
    if ('status' in decision) return void endRaw(client, decision.status, decision.text);
    const upstream = net.connect({ host: decision.address, port: decision.port, timeout: this.options.connectTimeoutMs ?? 10_000 });
    sockets.add(upstream);
    upstream.once('timeout', () => upstream.destroy(new Error('connect timeout')));
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (error) => {
      if (!connected && client.writable) {
        const exhausted = this.outOfFds(label, error);
        if (exhausted) endRaw(client, 503, exhausted);
        else
          endRaw(
            client,
            502,
            `hookwise sandbox proxy: cannot connect to ${target.host}:${target.port} (${(error as NodeJS.ErrnoException).code ?? error.message})`,
          );
      } else client.destroy();
    });
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    client.on('close', () => upstream.destroy());
  }

  private async forwardRequest(
    label: string,
    rules: readonly NetworkRule[],
    req: http.IncomingMessage,
    res: http.ServerResponse,
    sockets: Set<net.Socket>,
  ): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return void answer(res, 400, 'hookwise sandbox proxy: send absolute-form requests (http://host/path) or CONNECT host:port');
    }
    if (url.protocol !== 'http:') return void answer(res, 400, `hookwise sandbox proxy: ${url.protocol} URLs go through CONNECT, not as a plain request`);
    const port = url.port === '' ? 80 : Number(url.port);
    const decision = await this.decide(label, rules, url.hostname, port);
    if ('status' in decision) return void answer(res, decision.status, decision.text);
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_HEADERS.has(name) && value !== undefined) headers[name] = value;
    headers.host = url.host;
    const upstream = http.request({
      host: decision.address,
      port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers,
      setHost: false,
      agent: false,
    });
    upstream.on('socket', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    upstream.on('response', (response) => {
      const out: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(response.headers)) if (!HOP_HEADERS.has(name) && value !== undefined) out[name] = value;
      res.writeHead(response.statusCode ?? 502, response.statusMessage, out);
      // pipe() does not pass an upstream's abort on: without this the client would wait on a response that
      // never ends. Destroying ours closes the client's connection mid-body, which it sees as an error.
      response.on('error', () => res.destroy());
      response.on('close', () => {
        if (!response.complete) res.destroy();
      });
      response.pipe(res);
    });
    upstream.on('error', (error) => {
      const exhausted = this.outOfFds(label, error);
      if (!res.headersSent)
        answer(
          res,
          exhausted ? 503 : 502,
          exhausted ?? `hookwise sandbox proxy: cannot reach ${url.host} (${(error as NodeJS.ErrnoException).code ?? error.message})`,
        );
      else res.destroy();
    });
    req.pipe(upstream);
    res.on('close', () => upstream.destroy());
  }
}

/**
 * One run's open tunnels and forwarded requests: a slot is taken per CONNECT or request and given back when its
 * client side closes (a tunnel's socket, a request's response).
 */
class RunSlots {
  private open = 0;
  /** Connections refused at the limit so far. */
  refusals = 0;
  constructor(private readonly limit: number) {}

  take(holder: net.Socket | http.ServerResponse): boolean {
    if (this.open >= this.limit) return false;
    this.open += 1;
    holder.once('close', () => (this.open -= 1));
    return true;
  }
}

/** "host:port" or "[v6]:port" from a CONNECT line. */
function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return undefined;
  return { host: match[1] ?? match[2], port };
}

function answer(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close', ...(status === 503 ? { 'retry-after': '5' } : {}) });
  res.end(`${text}\n`);
}

function endRaw(socket: net.Socket, status: number, text: string): void {
  const body = `${text}\n`;
  const reason = status === 403 ? 'Forbidden' : status === 400 ? 'Bad Request' : status === 503 ? 'Service Unavailable' : 'Bad Gateway';
  const retry = status === 503 ? 'Retry-After: 5\r\n' : '';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${retry}Connection: close\r\n\r\n${body}`,
  );
}
