// A `notify:` target that answers with a redirect: the signed lifecycle message must not be posted again to
// wherever the Location points (an internal address), and a redirect is not retried.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'winston';
import { OutboxSender } from '../../src/observe/lifecycle-webhooks-sender';
import { MemoryOutbox } from '../../src/stores/memory-outbox';

interface Recorder {
  server: Server;
  url: string;
  requests: Array<{ method?: string; url?: string; headers: IncomingMessage['headers'] }>;
}

async function recorder(answer: (req: IncomingMessage, res: import('node:http').ServerResponse) => void): Promise<Recorder> {
  const requests: Recorder['requests'] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method, url: req.url, headers: req.headers });
    req.resume();
    req.on('end', () => answer(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

function recordingLogger(lines: string[]): Logger {
  const log = (level: string) => (message: string) => lines.push(`${level}: ${message}`);
  return { warn: log('warn'), info: log('info'), debug: log('debug'), error: log('error') } as unknown as Logger;
}

describe('lifecycle webhooks and redirects', () => {
  it('refuses a 307 to an internal server: nothing reaches it, the message is not retried, the log names the Location without its query', async () => {
    const internal = await recorder((_req, res) => res.writeHead(200).end('ok'));
    const target = await recorder((_req, res) => res.writeHead(307, { location: `${internal.url}/admin/replay?token=internal-token-123` }).end());
    servers.push(internal.server, target.server);
    const lines: string[] = [];
    const outbox = new MemoryOutbox();
    const sender = new OutboxSender(
      { key: 'notify-test', url: `${target.url}/hooks`, shown: `${target.url}/hooks`, sign: () => 'v1,signature' },
      outbox,
      { maxQueue: 10, maxAttempts: 5, baseDelayMs: 10, maxDelayMs: 20, timeoutMs: 2000, pollMs: 20 },
      recordingLogger(lines),
    );
    sender.start();
    sender.push(JSON.stringify({ type: 'job.succeeded' }));
    const until = Date.now() + 5000;
    while (!lines.some((l) => l.includes('HTTP 307')) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    // Time for retries, had there been any.
    await new Promise((r) => setTimeout(r, 300));
    await sender.close();

    expect(internal.requests).toEqual([]);
    expect(target.requests).toHaveLength(1);
    const warning = lines.find((l) => l.includes('HTTP 307'));
    expect(warning).toMatch(/^warn: notify .*: dropped msg_[\w-]+, not retried: the target answered HTTP 307 redirecting to/);
    expect(warning).toContain(`${internal.url}/admin/replay`);
    expect(warning).not.toContain('internal-token-123');
    expect(await outbox.due('notify-test', 10, 1000)).toEqual([]);
  });
});
