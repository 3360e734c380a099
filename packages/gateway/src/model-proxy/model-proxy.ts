// The gateway's model proxy (`agent.model_proxy`): every model call of an agent run goes to a loopback listener of
// the gateway, which checks the run's token, holds the run to its budget, forwards the call to the configured
// upstream with the real key, passes the answer back as it streams, and reads its tokens on the way. The run never
// holds a model key: it gets this listener's URL and a token valid only while it runs (proxy-session.ts). Like the
// job channel (jobs/job-channel.ts), a sandboxed run reaches 127.0.0.1:<port> through the egress proxy, the
// address being listed in its network.
//
//   POST /v1/messages[/count_tokens]             Anthropic Messages       -> providers.anthropic
//   POST /v1/chat/completions, /v1/responses     OpenAI (or compatible)   -> providers.openai
//   GET  /v1/models                              OpenAI's model list      -> providers.openai
//   POST /v1beta/models/<model>:generateContent,  Google's Gemini API      -> providers.gemini
//        :streamGenerateContent, :countTokens     (./gemini-api)
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'winston';
import type { Job, RouteBudget, WindowCounters } from '@hookwise/core';
import { errorMessage } from '@hookwise/core';
import type { ModelProviderConfig, ModelProxyConfig } from '../config/model-proxy-schema';
import { BudgetKeeper, budgetKeys } from '../jobs/budget';
import type { Route } from '../routes/routes';
import { ModelPrices } from './model-prices';
import { refusal, type ProxyAnswer } from './provider-errors';
import { geminiCall, geminiToken } from './gemini-api';
import { MODEL_KEY_VARIABLES, ProxySession } from './proxy-session';
import { UsageReader, type ModelApi } from './usage-reading';
import { readBodyLimited } from '../ingest/body';

type ProviderName = 'anthropic' | 'openai' | 'gemini';

interface Provider {
  name: ProviderName;
  base: URL;
  keyEnv: string;
  key?: string;
}

const DEFAULTS: Record<ProviderName, Required<ModelProviderConfig> & { base_url_env: string }> = {
  anthropic: { base_url: 'https://api.anthropic.com', base_url_env: 'ANTHROPIC_BASE_URL', api_key_env: 'ANTHROPIC_API_KEY' },
  openai: { base_url: 'https://api.openai.com/v1', base_url_env: 'OPENAI_BASE_URL', api_key_env: 'OPENAI_API_KEY' },
  gemini: { base_url: 'https://generativelanguage.googleapis.com', base_url_env: 'GOOGLE_GEMINI_BASE_URL', api_key_env: 'GEMINI_API_KEY' },
};

/**
 * The runners whose runs start agent processes that would otherwise get a model key (the `command` runner and its
 * presets): the proxy serves their runs by default. The `openai` and `anthropic` runners call the model from inside
 * the gateway, their key never in a sandbox.
 */
const PROCESS_RUNNERS = new Set(['command']);

/** `enabled`: true (every run), unset (auto: the runs of process runners, when the gateway holds a key), false. */
export type ModelProxyMode = 'on' | 'auto' | 'off';

/** Request bodies larger than this are refused (long contexts with images stay well below). */
const MAX_REQUEST_BYTES = 32 * 1024 * 1024;
/** A non-streamed answer is read for its usage up to this size; a larger one is passed on unread. */
const MAX_READ_BYTES = 8 * 1024 * 1024;

/** Headers never passed on: the run's token, hop-by-hop ones, and what the proxy sets itself. */
const DROPPED_REQUEST_HEADERS = new Set([
  'host',
  'authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'accept-encoding',
  'cookie',
]);
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'set-cookie', 'proxy-authenticate']);

function tokenKey(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Which API a path is, and which provider serves it; undefined for a path the proxy does not serve. */
export function apiOf(pathname: string): { api: ModelApi | undefined; provider: ProviderName } | undefined {
  if (/^\/v1\/messages(\/count_tokens)?\/?$/.test(pathname))
    return { api: pathname.includes('count_tokens') ? undefined : 'anthropic-messages', provider: 'anthropic' };
  if (/^\/v1\/chat\/completions\/?$/.test(pathname)) return { api: 'openai-chat', provider: 'openai' };
  if (/^\/v1\/responses\/?$/.test(pathname)) return { api: 'openai-responses', provider: 'openai' };
  if (/^\/v1\/models(\/[^/]+)?\/?$/.test(pathname)) return { api: undefined, provider: 'openai' };
  const gemini = geminiCall(pathname);
  if (gemini) return { api: gemini.counted ? 'gemini' : undefined, provider: 'gemini' };
  return undefined;
}

export interface ModelProxyOptions {
  config: ModelProxyConfig | undefined;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Where the budgets' windows are counted (the store's counters): the proxy reads the day's spend from them. */
  budgets: { counters: WindowCounters; global: RouteBudget | undefined };
  /** Adds a secret to the gateway's redaction (the configured keys). */
  redact?: (secret: string) => void;
}

export class ModelProxy {
  readonly mode: ModelProxyMode;
  private readonly providers: Record<ProviderName, Provider>;
  private readonly prices: ModelPrices;
  private readonly budgets: BudgetKeeper;
  private readonly sessions = new Map<string, ProxySession>();
  private readonly unpriced = new Set<string>();
  private server?: Promise<{ server: http.Server; port: number }>;
  private readonly agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

  constructor(private readonly options: ModelProxyOptions) {
    const config = options.config ?? {};
    this.mode = config.enabled === true ? 'on' : config.enabled === false ? 'off' : 'auto';
    const provider = (name: ProviderName): Provider => {
      const defaults = DEFAULTS[name];
      // Unset, the upstream is where the gateway's environment already points the CLIs (a company proxy, a local
      // model server), so that turning the proxy on by default changes nothing about where calls go.
      const envBase = /^https?:\/\//.test(options.env[defaults.base_url_env] ?? '') ? options.env[defaults.base_url_env] : undefined;
      const baseUrl = config.providers?.[name]?.base_url ?? envBase ?? defaults.base_url;
      // Google's clients take GEMINI_API_KEY or GOOGLE_API_KEY: the gateway holding only the latter calls with it.
      const configured = config.providers?.[name]?.api_key_env ?? defaults.api_key_env;
      const googleKey = configured === 'GEMINI_API_KEY' && !options.env.GEMINI_API_KEY && options.env.GOOGLE_API_KEY;
      const keyEnv = googleKey ? 'GOOGLE_API_KEY' : configured;
      const key = options.env[keyEnv] || undefined;
      if (key) options.redact?.(key);
      return { name, base: new URL(baseUrl.replace(/\/+$/, '')), keyEnv, key };
    };
    this.providers = { anthropic: provider('anthropic'), openai: provider('openai'), gemini: provider('gemini') };
    this.prices = new ModelPrices(config.pricing);
    this.budgets = new BudgetKeeper(options.budgets.counters, options.budgets.global);
  }

  /** The variables holding a provider key the proxy can call with (ANTHROPIC_API_KEY, OPENAI_API_KEY, api_key_env). */
  get heldKeys(): string[] {
    return Object.values(this.providers)
      .filter((p) => p.key)
      .map((p) => p.keyEnv);
  }

  /**
   * Whether the runs of a route whose runner is `runner` go through the proxy: always when on, never when off;
   * unset, the runs of a runner that starts agent processes whenever the gateway holds a provider key.
   */
  serves(runner: string): boolean {
    if (this.mode !== 'auto') return this.mode === 'on';
    return PROCESS_RUNNERS.has(runner) && this.heldKeys.length > 0;
  }

  /**
   * What startup says about the routes whose agent processes get a model key from the gateway's environment
   * because the proxy does not serve them: one warning per route (the proxy off, or no key it could use).
   */
  keyWarnings(routes: ReadonlyArray<{ name: string; runner: string }>): string[] {
    const held = [...new Set([...MODEL_KEY_VARIABLES, ...this.keyVariables])].filter((name) => this.options.env[name]);
    if (!held.length) return [];
    const why =
      this.mode === 'off'
        ? 'agent.model_proxy.enabled is false'
        : `the model proxy has no provider key to call with (${this.keyVariables.join(', ')} unset; set agent.model_proxy.providers.<anthropic|openai|gemini>.api_key_env to the variable that holds it)`;
    return routes
      .filter((route) => PROCESS_RUNNERS.has(route.runner) && !this.serves(route.runner))
      .map(
        (route) =>
          `route '${route.name}': ${why}, so its agent CLI gets ${held.join(', ')} from the gateway's environment where its preset or env: passes them: the key enters the run's sandbox, where a prompt-injected agent can read it and send it out; leave agent.model_proxy.enabled unset (docs/agents.md#the-model-proxy)`,
      );
  }

  /** The variables that hold the configured keys: kept out of every run, like the usual ones. */
  get keyVariables(): string[] {
    return Object.values(this.providers).map((p) => p.keyEnv);
  }

  /** Opens one run's session (the listener starts on first use); the session is closed when the run ends. */
  async open(route: Route, job: Job): Promise<ProxySession> {
    const { port } = await this.listen();
    const token = randomBytes(32).toString('base64url');
    const key = tokenKey(token);
    const address = { url: `http://127.0.0.1:${port}`, network: `127.0.0.1:${port}`, token };
    const keys = budgetKeys(route.budget, this.options.budgets.global, job.payload);
    const session = new ProxySession({ route, jobId: job.id, deliveryId: job.deliveryId, keys }, address, this.keyVariables, () => this.sessions.delete(key));
    this.sessions.set(key, session);
    return session;
  }

  /** How many runs hold an open session (tests). */
  get openCount(): number {
    return this.sessions.size;
  }

  private listen(): Promise<{ server: http.Server; port: number }> {
    this.server ??= new Promise((resolve, reject) => {
      const server = http.createServer((req, res) => void this.handle(req, res));
      server.keepAliveTimeout = 30_000;
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port }));
    });
    return this.server;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://model.proxy');
    const route = apiOf(url.pathname);
    // Refusals in the format of the API asked (Google's for a Gemini path, counted or not).
    const format = route?.api ?? (route?.provider === 'gemini' ? 'gemini' : undefined);
    const send = (answer: ProxyAnswer) => {
      if (res.headersSent) return void res.end();
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    };
    const session = this.sessionOf(req, url);
    if (!session) {
      req.resume();
      return send(refusal(format, 'auth', 'no valid run token: the model proxy answers only the agent run it was made for, while it runs'));
    }
    if (!route) {
      req.resume();
      return send(refusal(undefined, 'not_found', `the model proxy does not serve ${req.method} ${url.pathname}`));
    }
    try {
      const capped = session.cap ?? (await this.capOf(session));
      if (capped) {
        session.cap = capped;
        req.resume();
        return send(refusal(format, 'budget', `Hookwise: ${capped.note}`));
      }
      const body = await readBodyLimited(req, MAX_REQUEST_BYTES);
      await this.forward(session, this.providers[route.provider], route.api, req, url, body, res);
    } catch (err) {
      this.options.logger.warn(`model proxy: a call of ${session.facts.deliveryId} on route '${session.facts.route.name}' failed: ${errorMessage(err)}`);
      send(refusal(format, 'upstream', `the model proxy could not complete the call: ${errorMessage(err)}`));
    }
  }

  private sessionOf(req: http.IncomingMessage, url: URL): ProxySession | undefined {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const apiKey = req.headers['x-api-key'];
    const token = bearer ?? (typeof apiKey === 'string' ? apiKey : undefined) ?? geminiToken(req.headers, url);
    const session = token ? this.sessions.get(tokenKey(token)) : undefined;
    return session?.isOpen ? session : undefined;
  }

  private capOf(session: ProxySession) {
    const { route, keys } = session.facts;
    return this.budgets.runCap(route.name, route.budget, keys, { tokens: session.tokens.input + session.tokens.output, usd: session.usd });
  }

  private async forward(
    session: ProxySession,
    provider: Provider,
    api: ModelApi | undefined,
    req: http.IncomingMessage,
    url: URL,
    body: Buffer,
    res: http.ServerResponse,
  ): Promise<void> {
    let sent = body;
    let requestedModel = provider.name === 'gemini' ? geminiCall(url.pathname)?.model : undefined;
    if (body.length && (req.headers['content-type'] ?? 'application/json').includes('json')) {
      try {
        const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
        if (typeof parsed.model === 'string') requestedModel = parsed.model;
        // Chat Completions streams tell their usage only when asked to.
        if (api === 'openai-chat' && parsed.stream === true && (parsed.stream_options as { include_usage?: boolean } | undefined)?.include_usage !== true) {
          parsed.stream_options = { ...(parsed.stream_options as object | undefined), include_usage: true };
          sent = Buffer.from(JSON.stringify(parsed));
        }
      } catch {
        // Not JSON after all: passed on as it is, the upstream answers it.
      }
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!DROPPED_REQUEST_HEADERS.has(name) && value !== undefined) headers[name] = value;
    headers['accept-encoding'] = 'identity';
    headers['content-length'] = String(sent.length);
    if (provider.key) {
      if (provider.name === 'anthropic') headers['x-api-key'] = provider.key;
      else if (provider.name === 'gemini') headers['x-goog-api-key'] = provider.key;
      else headers.authorization = `Bearer ${provider.key}`;
    }
    // Anthropic and Gemini paths keep their version; an OpenAI base URL holds its own (…/v1), so ours is taken off.
    const path = provider.name === 'openai' ? url.pathname.replace(/^\/v1/, '') : url.pathname;
    // A Gemini client may send its key (the run's token) as ?key=: never passed on, the real key goes in a header.
    const query = new URLSearchParams(url.search);
    query.delete('key');
    const search = query.toString() ? `?${query.toString()}` : '';
    const target = new URL(provider.base.href.replace(/\/+$/, '') + path + search);
    const secure = target.protocol === 'https:';
    await new Promise<void>((resolve, reject) => {
      const upstream = (secure ? https : http).request(target, { method: req.method, headers, agent: secure ? this.agents.https : this.agents.http });
      const end = () => upstream.destroy(new Error('the agent run ended'));
      session.inFlight.add(end);
      const done = () => session.inFlight.delete(end);
      res.once('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.once('error', (err) => {
        done();
        reject(err);
      });
      upstream.once('response', (answer) => {
        const status = answer.statusCode ?? 502;
        // The upstream refused our key: its error may quote part of it, so the run gets ours instead (a 403: retrying
        // cannot help until the operator changes the key).
        if (status === 401 || status === 403) {
          answer.resume();
          done();
          this.options.logger.warn(`model proxy: ${provider.name} refused the gateway's key (${status}); check ${provider.keyEnv}`);
          const refused = refusal(
            api,
            'key_refused',
            `the model provider refused the gateway's credentials (${status}); the gateway's operator must check ${provider.keyEnv}`,
          );
          res.writeHead(refused.status, refused.headers);
          res.end(refused.body);
          return resolve();
        }
        const out: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) if (!DROPPED_RESPONSE_HEADERS.has(name) && value !== undefined) out[name] = value;
        res.writeHead(status, out);
        const streamed = String(answer.headers['content-type'] ?? '').includes('text/event-stream');
        const reader = api && status < 400 ? new UsageReader(api) : undefined;
        const kept: Buffer[] = [];
        let keptBytes = 0;
        answer.on('data', (chunk: Buffer) => {
          res.write(chunk);
          if (!reader) return;
          if (streamed) reader.readStream(chunk.toString('utf8'));
          else if ((keptBytes += chunk.length) <= MAX_READ_BYTES) kept.push(chunk);
        });
        answer.once('end', () => {
          // Counted before the answer ends, so that the run's next call is checked against it.
          if (reader) {
            if (!streamed && keptBytes <= MAX_READ_BYTES) reader.readBody(Buffer.concat(kept).toString('utf8'));
            this.count(session, reader, requestedModel);
          }
          done();
          res.end();
          resolve();
        });
        answer.once('error', (err) => {
          done();
          if (reader) this.count(session, reader, requestedModel);
          res.destroy(err);
          resolve();
        });
      });
      upstream.end(sent);
    });
  }

  /** One call's tokens and price into the run's session; a model without a price is warned about once. */
  private count(session: ProxySession, reader: UsageReader, requestedModel: string | undefined): void {
    const { model = requestedModel, tokens } = reader.result();
    const usd = tokens ? this.prices.costOf(model, tokens) : undefined;
    if (tokens && usd === undefined && model && !this.unpriced.has(model)) {
      this.unpriced.add(model);
      this.options.logger.warn(
        `model proxy: no price for model '${model}': its calls are counted in tokens but not in dollars; add it to agent.model_proxy.pricing`,
      );
    }
    session.add(tokens, usd);
  }

  async close(): Promise<void> {
    for (const session of [...this.sessions.values()]) session.close();
    this.sessions.clear();
    this.agents.http.destroy();
    this.agents.https.destroy();
    const started = this.server;
    this.server = undefined;
    const server = started && (await started.catch(() => undefined))?.server;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }
}
