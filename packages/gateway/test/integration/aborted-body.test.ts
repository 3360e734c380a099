// Issue 34: a client that hangs up in the middle of its body is a client fault, like a bad body or a wrong
// signature: logged at info (not as "webhook handling failed" at error), at most one line per minute however many
// clients do it, and counted as a rejection with its own reason in the metrics.
import { connect } from 'node:net';
import { startTestGateway, type TestGateway } from '@hookwise/testing';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

const config = {
  platforms: { webhook: { enabled: true, extra: { routes: { dev: { secret: 'INSECURE_NO_AUTH' } } } } },
  metrics: { enabled: true },
};

/** Sends the headers of a 10,000-byte POST and 100 bytes of its body over a raw socket, then hangs up. */
function postAndHangUp(url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`POST /webhooks/dev HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n`);
      socket.write(`{"a":"${'x'.repeat(94)}`, () => {
        // Give the gateway time to start reading the body, so the hang-up lands mid-body.
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    socket.on('error', reject);
  });
}

async function rejections(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('hookwise_webhook_rejections_total{') && l.includes('reason="client_aborted"'));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('a request body the client abandons', () => {
  it('is logged once at info, never at error, and counted as client_aborted', async () => {
    gw = await startTestGateway({ config });
    for (let i = 0; i < 5; i++) await postAndHangUp(gw.url);

    // Every one is counted, although only the first is logged.
    const deadline = Date.now() + 5000;
    while ((await rejections(gw.url)) < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await rejections(gw.url)).toBe(5);

    const line = await gw.waitForLog(/closed the connection before its body was complete/);
    expect(line.level).toBe('info');
    expect(line.message).toContain("route 'dev'");
    expect(gw.logs.filter((l) => /closed the connection before its body was complete/.test(String(l.message)))).toHaveLength(1);
    expect(gw.logs.filter((l) => l.level === 'error')).toEqual([]);

    // The gateway still serves the route.
    expect((await gw.post('dev', '{"a":1}')).status).toBe(202);
  });
});
