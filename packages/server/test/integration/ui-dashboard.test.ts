// The dashboard at /ui in headless Chromium against a real gateway: signing in (and being refused without the
// token), an event appearing live, its detail (prompt, answer, headers without secrets), replay, dead letters,
// the status filter and retry. Screenshots of failed steps are saved (the path is printed).
import { signGeneric, type TestGateway } from '@hookwise/testing';
import { ADMIN_TOKEN, SECRET, send, startObserved } from './observed-gateway';
import { dashboardPerTest, signIn, step } from '../ui/chromium';

const ui = dashboardPerTest();

const row = (deliveryId: string) => `#event-rows tr[data-delivery-id="${deliveryId}"]`;
const push = (gw: TestGateway, id: string, ref = 'main') =>
  send(gw, 'ci', { event_type: 'push', ref, repository: { name: 'hookwise' } }, { 'x-request-id': id });

describe('dashboard with an admin token', () => {
  it('refuses the dashboard and the API without the token, then signs in with it', async () => {
    const gw = ui.stopAfter(await startObserved({ admin: { ui: true, token: ADMIN_TOKEN } }));
    const { page } = ui;
    await step(page, 'refused-without-token', async () => {
      const answer = await page.goto(`${gw.url}/ui`);
      expect(answer?.status()).toBe(401);
      await page.locator('input[name="token"]').waitFor();
      expect(await page.locator('#event-rows').count()).toBe(0);
      // The page's own requests to the API are refused too.
      const api = await page.evaluate(async () => (await fetch('/api/deliveries')).status);
      expect(api).toBe(401);
    });
    await step(page, 'wrong-token', async () => {
      await page.fill('input[name="token"]', 'not-the-admin-token-at-all');
      await page.click('form.login button[type="submit"]');
      await page.locator('#login-error').waitFor();
      expect(await page.locator('#login-error').textContent()).toContain('That token was not accepted.');
    });
    await step(page, 'signed-in', async () => {
      await page.fill('input[name="token"]', ADMIN_TOKEN);
      await page.click('form.login button[type="submit"]');
      await page.waitForURL(`${gw.url}/ui`);
      await page.locator('#event-rows').waitFor();
      expect(await page.locator('h1').first().textContent()).toBe('Events');
      const api = await page.evaluate(async () => (await fetch('/api/deliveries')).status);
      expect(api).toBe(200);
    });
    // The session cookie is HttpOnly: page scripts never see it (nor the token).
    // (Expressions as strings: the tests' TypeScript has no DOM types.)
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(await page.content()).not.toContain(ADMIN_TOKEN);
  });

  it('shows a new webhook live, opens it with its prompt and answer, and replays it as a new event', async () => {
    const gw = ui.stopAfter(await startObserved({ admin: { ui: true, token: ADMIN_TOKEN } }));
    const { page } = ui;
    await signIn(page, gw.url, ADMIN_TOKEN);
    await page.locator('#live[data-state="live"]').waitFor();

    const body = JSON.stringify({ event_type: 'push', ref: 'main', repository: { name: 'hookwise' } });
    const signature = signGeneric(SECRET, body);
    await step(page, 'event-appears-live', async () => {
      expect((await gw.post('ci', body, { 'x-webhook-signature': signature, 'x-request-id': 'ui-1' })).status).toBe(202);
      // No reload: the change stream brings the row, and then its final status.
      await page.locator(`${row('ui-1')}[data-status="done"]`).waitFor();
      expect(
        await page
          .locator(`${row('ui-1')} td`)
          .nth(1)
          .textContent(),
      ).toBe('ci');
      expect(await page.locator('[data-count="pending"]').textContent()).toBe('0');
    });
    await step(page, 'event-detail', async () => {
      await page.click(`${row('ui-1')} a`);
      await page.waitForURL(/\/ui\/deliveries\/ui-1$/);
      expect(await page.locator('#prompt').textContent()).toBe('Build main of hookwise');
      expect(await page.locator('#answer').textContent()).toBe('Answer to: Build main of hookwise');
      expect(await page.locator('#receipt').textContent()).toContain('chat-room-7');
      expect(await page.locator('#payload').textContent()).toContain('"repository"');
      const signatureRow = page.locator('#headers tr', { has: page.locator('th', { hasText: 'x-webhook-signature' }) });
      expect(await signatureRow.locator('td').textContent()).toBe('[REDACTED]');
      expect(await page.content()).not.toContain(signature);
      expect(await page.locator('#attempts tbody tr').count()).toBe(2);
    });
    await step(page, 'replayed', async () => {
      await page.click('#replay');
      await page.waitForURL(/\/ui\/deliveries\/ui-1-replay-\d+$/);
      // The new job runs while the page is open; the page follows it to the end.
      await page.locator('#delivery[data-status="done"]').waitFor();
      expect(await page.locator('#answer').textContent()).toBe('Answer to: Build main of hookwise');
    });
    await step(page, 'both-in-list', async () => {
      await page.goto(`${gw.url}/ui`);
      const ids = await page.locator('#event-rows tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-delivery-id')));
      expect(ids).toHaveLength(2);
      expect(ids[0]).toMatch(/^ui-1-replay-\d+$/);
      expect(ids[1]).toBe('ui-1');
    });
  });
});

describe('dashboard on loopback without a token', () => {
  it('lists dead letters with the status filter, retries one, and shows refused requests and the charts', async () => {
    const gw = ui.stopAfter(await startObserved({ admin: { ui: true } }));
    const { page } = ui;
    await push(gw, 'ok-1');
    await push(gw, 'fail2-dead');
    await gw.post('ci', '{"event_type":"push"}', { 'x-webhook-signature': '00'.repeat(32) });
    await step(page, 'list', async () => {
      await page.goto(`${gw.url}/ui`);
      await page.locator(`${row('fail2-dead')}[data-status="dead"]`).waitFor();
      await page.locator(`${row('ok-1')}[data-status="done"]`).waitFor();
      expect(await page.locator('[data-count="dead"]').textContent()).toBe('1');
      expect(await page.locator('figure.chart svg').count()).toBe(3);
      expect(await page.locator('#request-rows').textContent()).toContain('invalid_signature');
    });
    await step(page, 'status-filter', async () => {
      await page.selectOption('select[name="status"]', 'dead');
      await page.waitForFunction("document.querySelectorAll('#event-rows tr[data-delivery-id]').length === 1");
      expect(page.url()).toContain('status=dead');
      expect(await page.locator('#event-rows tr').getAttribute('data-delivery-id')).toBe('fail2-dead');
    });
    await step(page, 'retry', async () => {
      await page.click(`${row('fail2-dead')} a`);
      await page.waitForURL(/\/ui\/deliveries\/fail2-dead$/);
      expect(await page.locator('#attempts').textContent()).toContain('dead letter');
      await page.click('#retry');
      await page.locator('#delivery[data-status="done"]').waitFor();
      expect(await page.locator('#receipt').textContent()).toContain('chat-room-7');
    });
    await step(page, 'event-filter', async () => {
      await page.goto(`${gw.url}/ui?event=pull_request`);
      await page.locator('#event-rows tr.empty').waitFor();
      await page.goto(`${gw.url}/ui?route=ci&event=push`);
      expect(await page.locator('#event-rows tr[data-delivery-id]').count()).toBe(2);
    });
  });
});
