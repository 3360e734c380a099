// Issue 34: the access log writes the path as the client sent it. Express strips a router's mount point from
// req.url while the router answers, so `GET /api/stats` was logged as `/stats` and `/ui/login` as `/login`.
import type { TestGateway } from '@hookwise/testing';
import { ADMIN_TOKEN, startObserved } from './observed-gateway';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

const accessLines = (gw: TestGateway) => gw.logs.filter((l) => l.access === true).map((l) => `${String(l.method)} ${String(l.path)} ${String(l.status)}`);

it('logs /api and /ui requests with their full path', async () => {
  gw = await startObserved({ admin: { ui: true, token: ADMIN_TOKEN } });
  expect((await fetch(`${gw.url}/api/stats?since=1h`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(200);
  expect((await fetch(`${gw.url}/ui/login`)).status).toBe(200);
  await gw.waitForLog('GET /ui/login 200');
  expect(accessLines(gw)).toEqual(expect.arrayContaining(['GET /api/stats 200', 'GET /ui/login 200']));
  expect(accessLines(gw).some((l) => l.startsWith('GET /stats') || l.startsWith('GET /login'))).toBe(false);
});
