// Calls the serverless handler the way a function platform would: plain and base64 bodies, mixed-case headers,
// a route from the path or from routeName; the accepted event must be worked off and delivered to the log.
import { Writable } from 'node:stream';
import { signGeneric, testProcessEnv } from '@hookwise/testing';
import { createServerlessHandler, type ServerlessHandler } from '../../src/handler';

const SECRET = 'serverless-example-secret-0123456789';
const lines: string[] = [];
const waiters: Array<{ text: string; resolve: () => void }> = [];
const logStream = new Writable({
  write(chunk: Buffer, _enc, done) {
    const line = chunk.toString('utf8');
    lines.push(line);
    for (const w of [...waiters]) {
      if (!line.includes(w.text)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    done();
  },
});
const logged = (text: string) => (lines.some((l) => l.includes(text)) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ text, resolve })));

let fn: ServerlessHandler;
beforeAll(() => {
  fn = createServerlessHandler({
    env: testProcessEnv(undefined, { WEBHOOK_SECRET: SECRET }),
    logStream,
  });
});
afterAll(() => fn.stop(2_000));

const payload = JSON.stringify({
  deployment: { ref: 'v2.3.1', environment: 'production' },
  deployment_status: { state: 'success' },
  repository: { full_name: 'acme/shop' },
});

describe('examples/serverless', () => {
  it('accepts a signed event given as base64 with mixed-case headers, and the worker delivers it', async () => {
    const res = await fn.handler({
      path: '/webhooks/deploys',
      headers: {
        'Content-Type': 'application/json',
        'X-Webhook-Signature': signGeneric(SECRET, payload),
        'X-GitHub-Event': 'deployment_status',
        'X-Request-ID': 'sls-1',
      },
      body: Buffer.from(payload).toString('base64'),
      isBase64Encoded: true,
    });
    expect(res.statusCode).toBe(202);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.body)).toEqual({ status: 'accepted', route: 'deploys', event: 'deployment_status', delivery_id: 'sls-1' });
    await logged("delivered sls-1 on route 'deploys' via log");
    expect(lines.join('')).toContain('Deployment of v2.3.1 to production in acme/shop: success');
  });

  it("answers with the gateway's statuses: duplicate, ignored, bad signature, unknown route", async () => {
    const signed = { 'x-webhook-signature': signGeneric(SECRET, payload), 'x-github-event': 'deployment_status', 'x-request-id': 'sls-1' };
    const duplicate = await fn.handler({ routeName: 'deploys', headers: signed, body: payload });
    expect([duplicate.statusCode, JSON.parse(duplicate.body)]).toEqual([200, { status: 'duplicate', delivery_id: 'sls-1' }]);

    const ignored = await fn.handler({ routeName: 'deploys', headers: { ...signed, 'x-github-event': 'push', 'x-request-id': 'sls-2' }, body: payload });
    expect([ignored.statusCode, JSON.parse(ignored.body)]).toEqual([200, { status: 'ignored', event: 'push' }]);

    const forged = await fn.handler({ path: '/webhooks/deploys', headers: { 'X-Webhook-Signature': signGeneric('guess', payload) }, body: payload });
    expect([forged.statusCode, JSON.parse(forged.body)]).toEqual([401, { error: 'Invalid signature' }]);

    const unknown = await fn.handler({ path: '/webhooks/nope', headers: {}, body: '{}' });
    expect([unknown.statusCode, JSON.parse(unknown.body)]).toEqual([404, { error: 'Unknown route: nope' }]);
  });
});
