// The dashboard in headless Chromium against a real gateway: the usage panel per route (runs this hour and tokens
// today against the route's budget, the day's stored jobs summed), outcome badges, events and tokens in the event
// list, each run fact on an event's page, and the usage panel following a real agent run live.
import { send, startObserved } from './observed-gateway';
import { COALESCED_IDS, SILENT_NOTE, SKIPPED_NOTE, budgetedConfig, heldNote, startWithRunFacts } from './run-facts';
import { dashboardPerTest, step } from '../ui/chromium';

// startWithRunFacts may wait up to a minute for the clock hour to turn (see run-facts.ts).
jest.setTimeout(90_000);

const ui = dashboardPerTest();

const usageCell = (route: string, cell: string) => ui.page.locator(`#usage-rows tr[data-route="${route}"] td.${cell}`);
const row = (deliveryId: string) => `#event-rows tr[data-delivery-id="${deliveryId}"]`;

describe('dashboard: usage and run facts', () => {
  it('shows usage per route and marks each job with its outcome, events and tokens', async () => {
    const { gw, now } = await startWithRunFacts({ admin: { ui: true } });
    ui.stopAfter(gw);
    const { page } = ui;

    await step(page, 'usage-panel', async () => {
      await page.goto(`${gw.url}/ui`);
      expect(await usageCell('ci', 'runs-this-hour').textContent()).toBe('12/20');
      expect(await usageCell('ci', 'tokens-today').textContent()).toBe('3,400/100,000');
      expect(await usageCell('ci', 'agent-runs').textContent()).toBe('2');
      expect(await usageCell('ci', 'tokens-in').textContent()).toBe('1,250 (800 cached)');
      expect(await usageCell('ci', 'tokens-out').textContent()).toBe('342');
      expect(await page.locator('#usage-rows tr[data-route="ci"]').textContent()).toContain('1 delivered, 1 silent, 1 skipped, 2 open');
      expect(await page.locator(`${row('facts-skipped')} td.note`).textContent()).toBe(SKIPPED_NOTE);
      // docs has no budget: its counts alone.
      expect(await usageCell('docs', 'runs-this-hour').textContent()).toBe('0');
      expect(await usageCell('*', 'runs-this-hour').textContent()).toBe('13/100');
    });
    await step(page, 'event-rows', async () => {
      expect(await page.locator(`${row('facts-silent')}[data-outcome="silent"] .outcome-silent`).textContent()).toBe('silent');
      expect(await page.locator(`${row('facts-skipped')} .outcome-skipped`).getAttribute('title')).toBe(`skipped: ${SKIPPED_NOTE}`);
      expect(await page.locator(`${row('facts-held')} .outcome-held`).textContent()).toBe('held');
      expect(await page.locator(`${row('facts-delivered')} td.tokens`).textContent()).toBe('1,540');
      expect(await page.locator(`${row(COALESCED_IDS[0])} td.events`).textContent()).toBe('3');
    });
    await step(page, 'detail-pages', async () => {
      await page.goto(`${gw.url}/ui/deliveries/facts-delivered`);
      expect(await page.locator('#tokens').textContent()).toBe('1,200 in / 340 out (800 cached, 100 cache write)');
      // The run's route actions, each with its outcome (issue 30).
      expect(await page.locator('#actions tbody tr').allTextContents()).toEqual([
        '0github.add_labelsdone1{"labels":["bug"]}',
        '1github.add_labelsrefused0label(s) not allowed on this route: wontfix',
      ]);
      expect(await page.locator('#outcome').textContent()).toBe('delivered');
      await page.goto(`${gw.url}/ui/deliveries/facts-silent`);
      expect(await page.locator('#outcome').textContent()).toBe('silent: the agent had nothing to say; nothing delivered');
      expect(await page.locator('dl.summary').textContent()).toContain(SILENT_NOTE);
      expect(await page.locator('#receipt').textContent()).toBe('Nothing delivered: the job ended silent.');
      await page.goto(`${gw.url}/ui/deliveries/facts-held`);
      expect(await page.locator('#waiting').textContent()).toBe(heldNote(now));
      await page.goto(`${gw.url}/ui/deliveries/${COALESCED_IDS[0]}`);
      expect(await page.locator('#coalesced').textContent()).toBe(`stands for 3 events: ${COALESCED_IDS.join(', ')}`);
      expect(await page.locator('dl.summary').textContent()).toContain('hookwise#7');
      expect(JSON.parse((await page.locator('#coalesced-payloads').textContent()) ?? '')).toEqual([0, 1, 2].map((n) => ({ event_type: 'push', n })));
    });
  });

  it('follows a real agent run: the usage panel counts it without a reload', async () => {
    const gw = ui.stopAfter(await startObserved({}, { config: budgetedConfig({ admin: { ui: true } }) }));
    const { page } = ui;
    await page.goto(`${gw.url}/ui`);
    await page.locator('#live[data-state="live"]').waitFor();
    expect(await usageCell('ci', 'runs-this-hour').textContent()).toBe('0/20');
    await step(page, 'usage-live', async () => {
      await send(gw, 'ci', { event_type: 'push', ref: 'main', repository: { name: 'hookwise' } }, { 'x-request-id': 'ui-usage-1' });
      await page.locator(`${row('ui-usage-1')}[data-status="done"]`).waitFor();
      // The observed agent reports 12 input and 5 output tokens.
      // (Locators, not waitForFunction: the page's CSP forbids evaluating strings.)
      await page.locator('#usage-rows tr[data-route="ci"] td.runs-this-hour', { hasText: /^1\/20$/ }).waitFor();
      expect(await usageCell('ci', 'tokens-today').textContent()).toBe('17/100,000');
      expect(await page.locator(`${row('ui-usage-1')} td.tokens`).textContent()).toBe('17');
    });
  });
});
