// Approvals (issue 31) on the dashboard, in headless Chromium against a real gateway: a route with approval: (no
// chat, the dashboard only) holds its answer; the signed-in operator finds it under Approvals, approves one (it is
// delivered once) and denies another (done as denied, nothing delivered); the admin API refuses a second decision.
import type { Job } from '@hookwise/core';
import type { TestGateway } from '@hookwise/testing';
import type { Page } from 'playwright-core';
import { ADMIN_TOKEN, send, SECRET, startObserved } from './observed-gateway';
import { pagePerTest, step } from '../ui/chromium';

jest.setTimeout(90_000);

let gw: TestGateway | undefined;
let page: Page;

pagePerTest(
  (opened) => (page = opened),
  async () => {
    await gw?.stop();
    gw = undefined;
  },
);

async function job(deliveryId: string, done: (job: Job) => boolean): Promise<Job> {
  const end = Date.now() + 10_000;
  for (;;) {
    const found = (await gw!.gateway.store.jobs.list({ limit: 100 })).find((j) => j.deliveryId === deliveryId);
    if (found && done(found)) return found;
    if (Date.now() > end) throw new Error(`${deliveryId}: ${JSON.stringify(found)}\n${gw!.logText()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const held = (j: Job) => j.status === 'pending' && /waiting for approval/.test(j.note ?? '');

describe('approvals on the dashboard', () => {
  it('the signed-in operator approves one held answer and denies another', async () => {
    gw = await startObserved({
      admin: { ui: true, token: ADMIN_TOKEN },
      platforms: {
        webhook: {
          enabled: true,
          extra: { routes: { gated: { secret: SECRET, deliver: 'flaky', prompt: 'Release {name}', approval: { approvers: ['telegram:1'] } } } },
        },
      },
    });
    const delivered: string[] = [];
    gw.gateway.on('delivered', (e) => delivered.push(e.deliveryId));
    expect((await send(gw, 'gated', { name: 'one' }, { 'x-request-id': 'gate-1' })).status).toBe(202);
    expect((await send(gw, 'gated', { name: 'two' }, { 'x-request-id': 'gate-2' })).status).toBe(202);
    const first = await job('gate-1', held);
    const second = await job('gate-2', held);

    await step(page, 'sign-in', async () => {
      await page.goto(`${gw!.url}/ui/login`);
      await page.fill('input[name="token"]', ADMIN_TOKEN);
      await page.click('form.login button[type="submit"]');
      await page.waitForURL('**/ui');
      await page.locator('nav a', { hasText: 'Approvals' }).click();
      await page.waitForURL('**/ui/approvals');
    });
    await step(page, 'approvals-list', async () => {
      const one = page.locator(`section.approval[data-job-id="${first.id}"]`);
      expect(await one.locator('pre.answer').textContent()).toBe('Answer to: Release one');
      expect(await one.locator('.muted').textContent()).toContain('approvers telegram:1');
      await one.locator('button.approve').click();
      // The page is drawn again without it once the decision is recorded.
      await page.locator(`section.approval[data-job-id="${first.id}"]`).waitFor({ state: 'detached' });
    });
    expect(await job('gate-1', (j) => j.status === 'done')).toMatchObject({ status: 'done' });
    await step(page, 'deny', async () => {
      await page.locator(`section.approval[data-job-id="${second.id}"] button.deny`).click();
      await page.locator('#approvals-empty').waitFor();
    });
    expect(await job('gate-2', (j) => j.status === 'done')).toMatchObject({ outcome: 'denied', note: expect.stringContaining('denied by dashboard') });
    await new Promise((r) => setTimeout(r, 600));
    expect(delivered).toEqual(['gate-1']);

    // A decision made is final: the API answers 409, and without the CSRF header or a token, 403/401.
    const again = await fetch(`${gw.url}/api/approvals/${second.id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(again.status).toBe(409);
    const anonymous = await fetch(`${gw.url}/api/approvals/${second.id}/approve`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
  });
});
