// The per-job subscription channel. The SPEC lets the agent subscribe itself (`hookwise webhook
// subscribe` in its terminal, the webhook-subscriptions skill), but a sandboxed agent has no config dir, and
// giving it one let an injected agent choose a route's secret, overwrite routes, and send a route's secret to
// any URL (`webhook test --url`). Instead each agent run gets a token valid while the run lasts, for a small
// HTTP API on a loopback listener of the gateway's own:
//
//   GET    /api/job/subscriptions          the subscriptions this job made (never a secret)
//   PUT    /api/job/subscriptions/<name>   create a route, or change one this job made (the `subscribe` action)
//   DELETE /api/job/subscriptions/<name>   remove a route this job made (needs the `subscribe` action too)
//
// A subscription made here gets a secret the gateway generates and never returns; routes the job did not make
// are never shown, changed or removed. The route's `actions:` decide here as on the MCP endpoint: without
// `subscribe` a PUT or DELETE is refused with the tool's reason, and a PUT counts against its `max`. The listener is on 127.0.0.1, so a sandboxed run reaches it through the egress
// proxy when the run's network lists `network` (the channel's `127.0.0.1:<port>`, a listed loopback address being
// reachable by the proxy's rules); an unsandboxed run reaches it directly. The same URL works both ways, and
// no reserved host name or proxy change is needed.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '@hookwise/core';
import { JobChannelRequests, type ChannelGateway, type ChannelSession } from './job-channel-requests';
import type { ChannelTools } from './channel-tools';
import { serveChannelMcp } from './channel-mcp';
import { BodyTooLargeError, readBodyLimited } from '../ingest/body';

export type { ChannelGateway } from './job-channel-requests';

/** What a runner adds to one run: the environment for its processes and the host for its sandbox's network. */
export interface JobChannel {
  /** HOOKWISE_JOB_ACTIONS (the offered actions, comma-separated) only when the route lists actions. */
  env: { HOOKWISE_JOB_CHANNEL: string; HOOKWISE_JOB_TOKEN: string; HOOKWISE_JOB_ACTIONS?: string };
  /** `127.0.0.1:<port>`: add to the run's sandbox network so the egress proxy lets the channel through. */
  network: string;
  /** Paths the run's sandbox lets it read: the distribution's agent CLI (GatewayOptions.agentCli), so it can start. */
  readOnly: string[];
  /** Ends the token (after the run); later requests with it are refused. */
  close(): void;
}

const MAX_BODY = 64 * 1024;

/** A token is looked up by its hash, so the lookup's timing says nothing about the token. */
function tokenKey(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export class JobChannels {
  private server?: Promise<{ server: http.Server; port: number }>;
  private readonly sessions = new Map<string, ChannelSession>();
  private readonly requests: JobChannelRequests;

  constructor(
    private readonly gateway: ChannelGateway,
    private readonly options: { readOnly?: string[] } = {},
  ) {
    this.requests = new JobChannelRequests(gateway);
  }

  /** Opens the channel of one agent run (the listener starts on first use). Close it when the run ends. */
  async open(job: { id: string; route: string; deliveryId?: string }, actions?: ChannelTools): Promise<JobChannel> {
    const { port } = await this.listen();
    const token = randomBytes(32).toString('base64url');
    const key = tokenKey(token);
    const session: ChannelSession = { jobId: job.id, route: job.route, actions };
    this.sessions.set(key, session);
    // The subscribe action (MCP tool or REST PUT alike) performs through the channel's checks, as this job's own.
    actions?.bindSubscribe((name, body) => this.requests.subscribe(session, name, body));
    return {
      env: {
        HOOKWISE_JOB_CHANNEL: `http://127.0.0.1:${port}/api/job`,
        HOOKWISE_JOB_TOKEN: token,
        ...(actions ? { HOOKWISE_JOB_ACTIONS: actions.names() } : {}),
      },
      network: `127.0.0.1:${port}`,
      readOnly: [...(this.options.readOnly ?? [])],
      close: () => void this.sessions.delete(key),
    };
  }

  /** How many runs hold an open channel (tests). */
  get openCount(): number {
    return this.sessions.size;
  }

  private listen(): Promise<{ server: http.Server; port: number }> {
    this.server ??= new Promise((resolve, reject) => {
      const server = http.createServer((req, res) => void this.handle(req, res));
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port }));
    });
    return this.server;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const reply = (status: number, body: unknown) => {
      if (res.headersSent) return void res.end();
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
      const session = auth ? this.sessions.get(tokenKey(auth[1])) : undefined;
      if (!session) {
        return reply(401, { error: 'no valid job token: the channel is open only to the agent run it was made for, while it runs (HOOKWISE_JOB_TOKEN)' });
      }
      const body = await readJsonBody(req);
      const url = new URL(req.url ?? '/', 'http://job.channel');
      // The channel's URL itself is its MCP endpoint: the route's actions as tools (actions/actions-mcp.ts).
      if (/^\/api\/job\/?$/.test(url.pathname)) {
        if (!session.actions) return reply(404, { error: "this run's route lists no actions (actions: in its config), so the channel offers no MCP tools" });
        return await serveChannelMcp(req, res, body, session.actions);
      }
      const answer = await this.requests.handle(session, req.method ?? 'GET', url.pathname, body);
      reply(answer.status, answer.body);
    } catch (err) {
      if (err instanceof BodyTooLargeError) {
        // The rest is read and dropped (not kept), so the client, still sending, gets the answer, then the connection ends.
        res.setHeader('connection', 'close');
        req.resume();
        return reply(413, { error: `the request body is larger than ${err.limit} bytes: send less` });
      }
      this.gateway.logger.warn(`job channel request failed: ${errorMessage(err)}`);
      reply(400, { error: errorMessage(err) });
    }
  }

  async close(): Promise<void> {
    this.sessions.clear();
    const started = this.server;
    this.server = undefined;
    const server = started && (await started.catch(() => undefined))?.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The request's JSON body (undefined when empty), read with the channel's limit by ingest's reader. */
async function readJsonBody(req: http.IncomingMessage): Promise<unknown> {
  const text = (await readBodyLimited(req, MAX_BODY)).toString('utf8');
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('the request body is not JSON');
  }
}
