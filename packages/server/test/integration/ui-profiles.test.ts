// The dashboard's profile filter in headless Chromium, with the default profile, acme and beta holding deliveries:
// choosing a profile lists only its rows, and the stats, usage and refused-requests panels, refreshed live, count
// that profile only; choosing "all profiles" lists every profile's rows again, and the usage panel names each row's
// profile.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signGeneric, type TestGateway } from '@hookwise/testing';
import type { Page } from 'playwright-core';
import { send, startObserved } from './observed-gateway';
import { dashboardPerTest, step } from '../ui/chromium';

const ACME_SECRET = 'acme-dashboard-secret-0123456789';
const BETA_SECRET = 'beta-dashboard-secret-0123456789';

const ui = dashboardPerTest();

const route = (secret: string) => ({ secret, deliver: 'flaky', prompt: 'Run {ref}' });

/** A signed event to a profile's route (`fail2-...` ids fail twice on delivery: a dead letter after two attempts). */
async function postTo(gw: TestGateway, profile: string, routeName: string, secret: string, deliveryId: string, signature?: string) {
  const body = JSON.stringify({ ref: deliveryId });
  const res = await fetch(`${gw.url}/p/${profile}/webhooks/${routeName}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signature ?? signGeneric(secret, body), 'x-request-id': deliveryId },
    body,
  });
  return res.status;
}

/** The listed rows as [profile, delivery id], sorted. */
const rows = (page: Page) =>
  page
    .locator('#event-rows tr[data-delivery-id]')
    .evaluateAll((trs) => trs.map((tr) => [tr.querySelector('td.profile')?.textContent ?? '', tr.getAttribute('data-delivery-id') ?? '']))
    .then((pairs) => pairs.sort());

/** Routes of the usage panel as [profile, route, stored events], sorted. */
const usage = (page: Page) =>
  page
    .locator('#usage-rows tr[data-route]:not(.all-routes)')
    .evaluateAll((trs) =>
      trs.map((tr) => [
        tr.querySelector('td.profile')?.textContent ?? '',
        tr.getAttribute('data-route') ?? '',
        tr.querySelector('td.events')?.textContent ?? '',
      ]),
    )
    .then((rows) => rows.sort());

describe('dashboard profile filter', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hookwise-ui-profiles-'));
    for (const [name, routes] of [
      ['acme', { ci: route(ACME_SECRET), build: route(ACME_SECRET) }],
      ['beta', { ci: route(BETA_SECRET) }],
    ] as const) {
      mkdirSync(join(dir, 'profiles', name), { recursive: true });
      writeFileSync(join(dir, 'profiles', name, 'config.yaml'), JSON.stringify({ platforms: { webhook: { extra: { routes } } } }));
    }
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("lists only the chosen profile's rows and keeps its stats, usage and refused requests on live updates", async () => {
    const gw = ui.stopAfter(await startObserved({ admin: { ui: true } }, { configDir: dir }));
    const { page } = ui;
    expect((await send(gw, 'ci', { event_type: 'push', ref: 'main', repository: { name: 'hookwise' } }, { 'x-request-id': 'd-1' })).status).toBe(202);
    expect(await postTo(gw, 'acme', 'ci', ACME_SECRET, 'a-1')).toBe(202);
    expect(await postTo(gw, 'acme', 'build', ACME_SECRET, 'a-2')).toBe(202);
    expect(await postTo(gw, 'beta', 'ci', BETA_SECRET, 'b-1')).toBe(202);
    // beta alone has a dead letter and a refused request: what acme's panels must not count.
    expect(await postTo(gw, 'beta', 'ci', BETA_SECRET, 'fail2-b')).toBe(202);
    expect(await postTo(gw, 'beta', 'ci', BETA_SECRET, 'b-refused', '00'.repeat(32))).toBe(401);

    await step(page, 'all-profiles', async () => {
      await page.goto(`${gw.url}/ui`);
      await page.locator('#event-rows tr[data-delivery-id="fail2-b"][data-status="dead"]').waitFor();
      await page.locator('#event-rows tr[data-delivery-id="a-2"][data-status="done"]').waitFor();
      expect(await page.locator('#events thead th').nth(1).textContent()).toBe('profile');
      expect(await page.locator('[data-count="dead"]').textContent()).toBe('1');
    });

    await step(page, 'choose-acme', async () => {
      await page.selectOption('select[name="profile"]', 'acme');
      // (Locators, not waitForFunction: the page's CSP forbids the eval a polled expression needs.)
      await page.locator('#event-rows tr[data-delivery-id="d-1"]').waitFor({ state: 'detached' });
      expect(page.url()).toContain('profile=acme');
      expect(await rows(page)).toEqual([
        ['acme', 'a-1'],
        ['acme', 'a-2'],
      ]);
    });

    await step(page, 'acme-panels-after-live-update', async () => {
      // Marks the panels' current content: a live refresh replaces it, so the marks going away says it happened.
      await page.evaluate(`(() => {
        document.querySelector('#stats .counts').setAttribute('data-stale', '1');
        document.querySelector('#usage-rows tr').setAttribute('data-stale', '1');
        document.querySelector('#request-rows tr').setAttribute('data-stale', '1');
      })()`);
      expect(await postTo(gw, 'acme', 'ci', ACME_SECRET, 'a-3')).toBe(202);
      await page.locator('#event-rows tr[data-delivery-id="a-3"][data-status="done"]').waitFor();
      // The usage panel is re-read at most every 5 s, and once more after a burst.
      await page.locator('#stats [data-stale], #usage-rows [data-stale], #request-rows [data-stale]').first().waitFor({ state: 'detached' });
      expect(await rows(page)).toEqual([
        ['acme', 'a-1'],
        ['acme', 'a-2'],
        ['acme', 'a-3'],
      ]);
      // beta's dead letter is not acme's, nor are the default profile's and beta's routes.
      expect(await page.locator('[data-count="dead"]').textContent()).toBe('0');
      expect(await page.locator('[data-count="pending"]').textContent()).toBe('0');
      await page.locator('#usage-rows tr[data-route="ci"] td.events', { hasText: /^2$/ }).waitFor();
      expect(await usage(page)).toEqual([
        ['acme', 'build', '1'],
        ['acme', 'ci', '2'],
      ]);
      expect(await page.locator('#request-rows').textContent()).not.toContain('invalid_signature');
    });

    await step(page, 'choose-all', async () => {
      await page.selectOption('select[name="profile"]', '');
      await page.locator('#event-rows tr[data-delivery-id="d-1"]').waitFor();
      expect(page.url()).not.toContain('profile=');
      expect(await rows(page)).toEqual([
        ['acme', 'a-1'],
        ['acme', 'a-2'],
        ['acme', 'a-3'],
        ['beta', 'b-1'],
        ['beta', 'fail2-b'],
        ['default', 'd-1'],
      ]);
      await page.locator('[data-count="dead"]', { hasText: /^1$/ }).waitFor();
      await page.locator('#request-rows td', { hasText: 'invalid_signature' }).waitFor();
      // Every profile's routes in the usage panel, each row naming its profile (three of them are called ci).
      expect(await page.locator('#usage thead th').first().textContent()).toBe('profile');
      // (The panel is re-read at most every 5 s after the choice.)
      await page.locator('#usage-rows tr[data-profile="default"][data-route="ci"]').waitFor({ timeout: 10_000 });
      expect(await usage(page)).toEqual([
        ['acme', 'build', '1'],
        ['acme', 'ci', '2'],
        ['beta', 'ci', '2'],
        ['default', 'ci', '1'],
        ['default', 'docs', '0'],
      ]);
    });

    await step(page, 'retry-dead-of-chosen-profile', async () => {
      // The dead letters of acme's page are acme's: retrying there leaves beta's dead letter dead.
      await page.goto(`${gw.url}/ui?profile=acme&status=dead`);
      await page.locator('#event-rows tr.empty').waitFor();
      await page.click('#retry-dead');
      await page.locator('#action-result.ok').waitFor();
      expect(await page.locator('#action-result').textContent()).toBe('No dead letters to retry.');
      const beta = (await (await fetch(`${gw.url}/api/deliveries/fail2-b?profile=beta`)).json()) as { delivery: { status: string } };
      expect(beta.delivery.status).toBe('dead');
    });
  });
});
