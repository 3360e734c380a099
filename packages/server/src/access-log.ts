// The access log: one line per HTTP request once its answer is sent (method, path, status, outcome, route, event,
// delivery id, duration, client), so that 400s and 404s leave a trace too. What the pipeline decided comes from
// the gateway's webhook handler, which keeps it on the response it answered; the rest from the request itself.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'winston';
import { routeFromUrl, type Gateway } from '@hookwise/gateway';

export interface AccessLine {
  method: string;
  /** Without the query string, which senders sometimes use for tokens. */
  path: string;
  status: number;
  /** accepted, duplicate, ignored, rejected:<reason>; or the HTTP status class for other paths. */
  outcome: string;
  route?: string;
  event?: string;
  delivery_id?: string;
  duration_ms: number;
  client?: string;
}

/** `POST /webhooks/ci 202 accepted route=ci event=push delivery=abc 3.1 ms client=127.0.0.1` */
export function formatAccessLine(line: AccessLine): string {
  const parts = [line.method, line.path, String(line.status), line.outcome];
  if (line.route !== undefined) parts.push(`route=${line.route}`);
  if (line.event) parts.push(`event=${line.event}`);
  if (line.delivery_id) parts.push(`delivery=${line.delivery_id}`);
  parts.push(`${line.duration_ms} ms`);
  if (line.client) parts.push(`client=${line.client}`);
  return parts.join(' ');
}

/**
 * Wraps a request listener so that every answered request is logged at info (GET /health at debug: health checks
 * come every few seconds). `format` is the logger's: JSON lines carry the fields, pretty lines say them in words.
 */
export function withAccessLog(listener: RequestListener, gateway: Gateway, logger: Logger, format: 'pretty' | 'json'): RequestListener {
  // At warn or error nothing would be written: no listener, no lifecycle events built for it (the benchmarks run so).
  if (!logger.isLevelEnabled('info')) return listener;
  // What the pipeline decided, kept by the webhook handler on the response it answers: no lifecycle events are
  // built for the access log.
  const { handler } = gateway;
  handler.recordDecisions();

  const write = (req: IncomingMessage, res: ServerResponse, started: bigint): void => {
    // originalUrl: Express strips a router's mount point (/api, /ui) from req.url while the router answers.
    const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const decision = handler.decisionOf(res);
    const isHealth = req.method === 'GET' && path === '/health';
    const level = isHealth ? 'debug' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const method = req.method ?? '-';
    const status = res.statusCode;
    const outcome = decision?.outcome ?? (status < 400 ? 'ok' : status < 500 ? 'client_error' : 'server_error');
    const route = decision?.route ?? (method === 'POST' ? routeFromUrl(req.url) : undefined);
    const duration_ms = Math.round(Number(process.hrtime.bigint() - started) / 10_000) / 100;
    const client = gateway.pipeline.clientOf({ remoteAddress: req.socket?.remoteAddress, headers: req.headers });
    const event = decision?.event;
    const delivery_id = decision?.deliveryId;
    // The JSON line's fields built in place (one object, not a line and a spread copy of it), in the same order.
    if (format === 'json')
      logger.log(level, `${method} ${path} ${status}`, { access: true, method, path, status, outcome, route, event, delivery_id, duration_ms, client });
    else logger.log(level, formatAccessLine({ method, path, status, outcome, route, event, delivery_id, duration_ms, client }));
  };

  return (req, res) => {
    const started = process.hrtime.bigint();
    let logged = false;
    const done = () => {
      if (logged) return;
      logged = true;
      write(req, res, started);
    };
    // 'finish' once the answer is sent; 'close' also covers a client that went away first. `on`, not `once`:
    // `done` runs its body once anyway, and once() wraps each listener in a closure of its own per request.
    res.on('finish', done);
    res.on('close', done);
    listener(req, res);
  };
}
