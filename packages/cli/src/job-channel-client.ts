// `hookwise webhook ...` inside an agent run: with HOOKWISE_JOB_CHANNEL set the commands talk to the
// gateway's per-job channel instead of the config dir (which a sandboxed run does not have). The channel decides
// what a run may do; this side refuses early, with the reason, what the channel would refuse anyway (a chosen
// secret, a test sent elsewhere). Node's fetch ignores HTTP_PROXY, and inside the sandbox the only way out is the
// egress proxy, so requests go through node:http, via the proxy when the environment names one.
import http from 'node:http';
import { parseCsv } from './csv-list';
import { deliverValue, parseKeyValues } from './subscription-entry';
import { parseFilterFlag } from './subscribe-route-flags';

export interface JobChannelEnv {
  url: string;
  token: string;
}

/** The channel when this process runs inside an agent run, else undefined. */
export function jobChannelFrom(env: NodeJS.ProcessEnv = process.env): JobChannelEnv | undefined {
  const url = env.HOOKWISE_JOB_CHANNEL;
  if (!url) return undefined;
  if (!env.HOOKWISE_JOB_TOKEN) throw new Error('HOOKWISE_JOB_CHANNEL is set but HOOKWISE_JOB_TOKEN is not: the agent run did not get its job token');
  return { url: url.replace(/\/+$/, ''), token: env.HOOKWISE_JOB_TOKEN };
}

/** The proxy to use for `target`, as curl reads the variables (NO_PROXY entries are host suffixes, `*` all). */
function proxyFor(target: URL, env: NodeJS.ProcessEnv): URL | undefined {
  const proxy = env.http_proxy || env.HTTP_PROXY;
  if (!proxy) return undefined;
  const noProxy = (env.no_proxy ?? env.NO_PROXY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const host = target.hostname;
  if (noProxy.some((entry) => entry === '*' || host === entry || host.endsWith(entry.startsWith('.') ? entry : `.${entry}`))) return undefined;
  return new URL(proxy);
}

/** One request to the channel; answers the status and the parsed JSON body. */
export function channelRequest(
  channel: JobChannelEnv,
  method: string,
  path: string,
  body?: unknown,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const target = new URL(`${channel.url}${path}`);
  const proxy = proxyFor(target, env);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: proxy ? proxy.hostname : target.hostname,
        port: proxy ? Number(proxy.port || 80) : Number(target.port || 80),
        // Through a proxy: the absolute form, which the egress proxy forwards to a listed host.
        path: proxy ? target.toString() : `${target.pathname}${target.search}`,
        method,
        headers: {
          host: target.host,
          authorization: `Bearer ${channel.token}`,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
        timeout: 15_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: Record<string, unknown>;
          try {
            parsed = JSON.parse(text) as Record<string, unknown>;
          } catch {
            parsed = { error: text.trim() || `HTTP ${res.statusCode}` };
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('the job channel did not answer within 15 s')));
    req.on('error', (err) => reject(new Error(`could not reach the job channel at ${channel.url} (${err.message}): is the agent run still going?`)));
    req.end(payload);
  });
}

/** `webhook subscribe` flags an agent run may use; the others are refused by name. */
const ALLOWED_FLAGS = new Set([
  'config-dir',
  'json',
  'events',
  'prompt',
  'deliver',
  'deliver-chat-id',
  'deliver-extra',
  'description',
  'skills',
  'filter',
  'filter-expression',
  // Only the expression form: a command is code the gateway runs, which an agent run never chooses.
  'transform-expression',
]);

/** The channel's body for `webhook subscribe` flags; throws naming a flag an agent run may not use (--secret, ...). */
export function channelSubscription(flags: Record<string, unknown>): Record<string, unknown> {
  const refused = Object.keys(flags).filter((flag) => flags[flag] !== undefined && !ALLOWED_FLAGS.has(flag));
  if (refused.length) {
    throw new Error(
      `${refused.map((f) => `--${f}`).join(', ')} cannot be used by an agent run (HOOKWISE_JOB_CHANNEL is set): the gateway generates the secret, and ` +
        'a run may set only --events, --prompt, --skills, --deliver, --deliver-chat-id, --deliver-extra, --description, --filter, --filter-expression and --transform-expression',
    );
  }
  const body: Record<string, unknown> = {};
  if (typeof flags.description === 'string') body.description = flags.description;
  if (typeof flags.events === 'string') body.events = parseCsv(flags.events);
  if (typeof flags.prompt === 'string') body.prompt = flags.prompt;
  if (typeof flags.skills === 'string') body.skills = parseCsv(flags.skills);
  if (typeof flags.deliver === 'string') body.deliver = deliverValue(flags.deliver);
  const extra = (flags['deliver-extra'] as string[] | undefined) ?? [];
  if (extra.length || flags['deliver-chat-id'] !== undefined) {
    body.deliver_extra = {
      ...(flags['deliver-chat-id'] !== undefined ? { chat_id: String(flags['deliver-chat-id']) } : {}),
      ...parseKeyValues(extra),
    };
  }
  const tests = [
    ...((flags.filter as string[] | undefined) ?? []).filter((f) => f !== '').map(parseFilterFlag),
    ...((flags['filter-expression'] as string[] | undefined) ?? []).map((expression) => ({ expression })),
  ];
  if (tests.length) body.filter = tests;
  const expression = flags['transform-expression'];
  if (typeof expression === 'string') {
    if (expression.trim() === '') throw new Error("--transform-expression '' cannot be used by an agent run: the operator removes a transform outside the run");
    body.transform = { expression };
  }
  return body;
}

/** The channel's refusal as an error message (its own text says what is wrong and what to do). */
export function channelError(answer: { status: number; body: Record<string, unknown> }): string {
  return `the gateway's job channel refused (HTTP ${answer.status}): ${String(answer.body.error ?? JSON.stringify(answer.body))}`;
}
