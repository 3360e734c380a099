// The node:http side of ingest: the handler a host mounts, and the listener in front of a host app. The request
// path is checked once per request either way; these tests run real HTTP servers on port 0.
import { createServer, request, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/observe/logger';
import { validateConfigObject } from '../../src/config/load';
import { INSECURE_NO_AUTH } from '../../src/config/schema';
import { RouteTable, staticRoutes } from '../../src/routes/routes';
import { createMemoryStore } from '../../src/stores/memory';
import { WebhookPipeline } from '../../src/ingest/pipeline';
import { createIngestListener, createWebhookHandler, type WebhookHandler } from '../../src/ingest/node-handler';

const MALFORMED = { error: 'Malformed percent-encoding in the request path' };

function handlerForRouteCi(): WebhookHandler {
  const config = validateConfigObject({ platforms: { webhook: { enabled: true, extra: { routes: { ci: { secret: INSECURE_NO_AUTH } } } } } });
  const logger = createLogger({ stream: new Writable({ write: (_chunk, _enc, done) => done() }), format: 'json', level: 'error' });
  const pipeline = new WebhookPipeline({
    routes: new RouteTable(staticRoutes(config)),
    sourcesFor: () => [],
    store: createMemoryStore(),
    limits: { rateLimit: 100, maxBodyBytes: 1024, maxPending: 100 },
    logger,
  });
  return createWebhookHandler(pipeline, logger);
}

/** A host app that answers 299 and says which request reached it; `webhooks` routes `/webhooks/...` as Express would. */
function hostApp(seen: string[], webhooks?: WebhookHandler): RequestListener {
  return (req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (webhooks && req.method === 'POST' && req.url?.startsWith('/webhooks/')) return webhooks.ingest(req, res);
    res.writeHead(299, { 'content-type': 'text/plain' }).end('app');
  };
}

let server: Server | undefined;

async function serve(listener: RequestListener): Promise<string> {
  server = createServer(listener);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Sends the path as written (fetch would normalise a malformed one). */
function send(host: string, method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
  const [hostname, port] = host.split(':');
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port: Number(port), method, path, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

describe('the webhook handler mounted by a host', () => {
  it('checks the path itself: 400 for one that does not decode, the pipeline for the rest', async () => {
    const host = await serve(handlerForRouteCi());
    const accepted = await send(host, 'POST', '/webhooks/ci', '{"a":1}');
    expect(accepted.status).toBe(202);
    expect(JSON.parse(accepted.body)).toMatchObject({ status: 'accepted', route: 'ci' });
    const malformed = await send(host, 'POST', '/webhooks/ci%ff', '{}');
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body)).toEqual(MALFORMED);
    const unknown = await send(host, 'POST', '/webhooks/nope', '{}');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toEqual({ error: 'Unknown route: nope' });
  });
});

describe('the ingest listener in front of a host app', () => {
  it('direct: takes POST /webhooks/<name> itself, answers 400 for any path that does not decode, leaves the rest to the app', async () => {
    const seen: string[] = [];
    const host = await serve(createIngestListener(handlerForRouteCi(), hostApp(seen), true));
    expect((await send(host, 'POST', '/webhooks/ci', '{"a":1}')).status).toBe(202);
    expect((await send(host, 'POST', '/webhooks/c%69', '{"a":2}')).status).toBe(202);
    for (const [method, path] of [
      ['GET', '/%zz'],
      ['POST', '/webhooks/%'],
      ['DELETE', '/health%'],
    ]) {
      const res = await send(host, method, path);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toEqual(MALFORMED);
    }
    expect((await send(host, 'GET', '/webhooks/ci')).status).toBe(299);
    expect((await send(host, 'POST', '/webhooks/ci/extra', '{}')).status).toBe(299);
    expect((await send(host, 'GET', '/health?q=%')).status).toBe(299);
    expect(seen).toEqual(['GET /webhooks/ci', 'POST /webhooks/ci/extra', 'GET /health?q=%']);
  });

  it('through the app: every request reaches the app once its path decodes, and its webhook route runs the pipeline', async () => {
    const seen: string[] = [];
    const handler = handlerForRouteCi();
    const host = await serve(createIngestListener(handler, hostApp(seen, handler), false));
    const accepted = await send(host, 'POST', '/webhooks/ci?x=%', '{"a":1}');
    expect(accepted.status).toBe(202);
    expect(JSON.parse(accepted.body)).toMatchObject({ status: 'accepted', route: 'ci' });
    const malformed = await send(host, 'POST', '/webhooks/%E0%A4%A', '{}');
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body)).toEqual(MALFORMED);
    expect((await send(host, 'GET', '/health')).status).toBe(299);
    expect(seen).toEqual(['POST /webhooks/ci?x=%', 'GET /health']);
  });
});
