// `curl -d '{...}'` sends JSON with curl's default form content type: the 400 and the log say so and what to add,
// while a body that is wrong in other ways keeps the plain answer.
import { startTestGateway, type TestGateway } from '@hookwise/testing';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

const config = { platforms: { webhook: { enabled: true, extra: { routes: { dev: { secret: 'INSECURE_NO_AUTH' } } } } } };
const HINT = "the body looks like JSON sent as application/x-www-form-urlencoded: add -H 'Content-Type: application/json'";

describe('a JSON body sent as a form', () => {
  it('gets the hint in the 400 body and in the log', async () => {
    gw = await startTestGateway({ config });
    const res = await gw.post('dev', '{"ref":"refs/heads/main"}', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Cannot parse body', hint: HINT });
    const line = await gw.waitForLog(HINT);
    expect(line.level).toBe('warn');
    expect(line.message).toContain("route 'dev'");
  });

  it('keeps the plain answer for a form that is no JSON and for broken JSON', async () => {
    gw = await startTestGateway({ config });
    const form = await gw.post('dev', 'a=1&b=2', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(400);
    expect(form.body).toEqual({ error: 'Cannot parse body' });
    const broken = await gw.post('dev', '{"a":', { 'content-type': 'application/json' });
    expect(broken.body).toEqual({ error: 'Cannot parse body' });
  });

  it('still accepts a form whose payload field is the JSON (the senders that post forms)', async () => {
    gw = await startTestGateway({ config });
    const res = await gw.post('dev', `payload=${encodeURIComponent('{"a":1}')}`, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(202);
  });
});
