// The quickstart config (what `npm start` runs): the README's curl gets 202 and the rendered prompt reaches the log.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestGateway, type TestGateway } from '@hookwise/testing';

// The test directory this file was written against (files sit one level below it now).
const TEST_DIR = require('node:path').join(__dirname, '..') as string;

describe('examples/quickstart', () => {
  let gw: TestGateway;
  afterEach(async () => {
    await gw?.stop();
  });

  it('accepts the README example with 202 and logs the rendered prompt as the echo answer', async () => {
    // Same file, served on a free port instead of 8644.
    gw = await startTestGateway({ config: readFileSync(join(TEST_DIR, '..', 'config.yaml'), 'utf8') });
    expect(gw.logText()).toContain('no real agent is configured');
    const res = await gw.post('demo', '{"hello":"world"}');
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'accepted', route: 'demo', event: '' });
    const line = await gw.waitForLog("response for route 'demo'");
    expect(String(line.message)).toContain(`Webhook received on the demo route: ${JSON.stringify({ hello: 'world' }, null, 2)}`);
  });
});
