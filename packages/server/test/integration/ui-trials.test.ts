// The kept trials of `hookwise routes try` in the admin API and on the dashboard, in headless Chromium against a
// real gateway: GET /api/trials and /api/trials/:id read <config_dir>/trials; the trial page shows each event's
// old and new answer side by side with the differing lines marked, and says which events are filtered out now.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startObserved } from './observed-gateway';
import { dashboardPerTest, step } from '../ui/chromium';
import { lineDiff } from '../../src/admin/line-diff';

const ui = dashboardPerTest();

const TRIAL_ID = 't-20260131-142501-3fa2';

/** A trial as `hookwise routes try` writes it (packages/cli/src/trial-store.ts). */
function writeTrial(configDir: string): void {
  mkdirSync(join(configDir, 'trials'), { recursive: true });
  const trial = {
    id: TRIAL_ID,
    route: 'ci',
    createdAt: '2026-01-31T14:25:01.000Z',
    change: { prompt: 'Summarise {ref} in two lines' },
    selection: { last: 10 },
    events: [
      {
        deliveryId: 'd-changed',
        jobId: 'j1',
        event: 'push',
        receivedAt: Date.parse('2026-01-31T10:00:00Z'),
        change: 'changed',
        old: { filter: 'passed', answer: 'Build main\nall green\n<b>bold</b>', silent: false, tokens: 120, status: 'done/delivered' },
        new: { filter: 'passed', answer: 'Build main\ntwo tests failed\n<b>bold</b>', silent: false, tokens: 80, durationMs: 1500 },
      },
      {
        deliveryId: 'd-dropped',
        jobId: 'j2',
        event: 'push',
        receivedAt: Date.parse('2026-01-31T09:00:00Z'),
        change: 'filtered-out-now',
        old: { filter: 'passed', answer: 'Docs only', silent: false, status: 'done/delivered' },
        new: { filter: 'filtered', filterReason: 'ref is "refs/heads/docs", not "refs/heads/main"' },
      },
    ],
    totals: {
      events: 2,
      runs: 1,
      silent: 0,
      silentRate: { old: 0, new: 0 },
      tokens: { old: 120, new: 80 },
      durationMs: { new: 1500 },
      filteredOutNow: 1,
      passesNow: 0,
      errors: 0,
    },
  };
  writeFileSync(join(configDir, 'trials', `${TRIAL_ID}.json`), JSON.stringify(trial));
  writeFileSync(join(configDir, 'trials', 'not-a-trial.json'), '{oops');
}

describe('trials: admin API and dashboard page', () => {
  it('lists and shows trials over the API, and refuses ids that are not trial ids', async () => {
    const gw = ui.stopAfter(await startObserved({ admin: { enabled: true } }));
    writeTrial(gw.configDir);
    const list = (await (await fetch(`${gw.url}/api/trials`)).json()) as { trials: Array<Record<string, unknown>> };
    expect(list.trials).toEqual([expect.objectContaining({ id: TRIAL_ID, route: 'ci', changed: 1 })]);
    expect(list.trials[0]).not.toHaveProperty('events');
    const one = (await (await fetch(`${gw.url}/api/trials/${TRIAL_ID}`)).json()) as { trial: { events: unknown[] } };
    expect(one.trial.events).toHaveLength(2);
    const missing = await fetch(`${gw.url}/api/trials/..%2F..%2Fconfig`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: string }).error).toContain('hookwise trials list');
  });

  it("shows each event's two answers side by side with the differing lines marked", async () => {
    const gw = ui.stopAfter(await startObserved({ admin: { ui: true } }));
    const { page } = ui;
    writeTrial(gw.configDir);
    await step(page, 'trials-list', async () => {
      // Reached from the dashboard's navigation, as an operator finds it.
      await page.goto(`${gw.url}/ui`);
      await page.locator('nav a', { hasText: 'Trials' }).click();
      await page.waitForURL('**/ui/trials');
      const row = page.locator(`#trial-rows tr[data-trial-id="${TRIAL_ID}"]`);
      expect(await row.locator('td.changed').textContent()).toBe('1');
      expect(await row.locator('td.filtered').textContent()).toBe('1');
      await row.locator('a').click();
      await page.waitForURL(`**/ui/trials/${TRIAL_ID}`);
    });
    await step(page, 'trial-page', async () => {
      expect(await page.locator('#trial-totals').textContent()).toContain('2 events, 1 runs');
      const changed = page.locator('section.trial-event[data-delivery-id="d-changed"]');
      expect(await changed.locator('.change').textContent()).toBe('answer changed');
      expect(await changed.locator('.side.old del').allTextContents()).toEqual(['all green']);
      expect(await changed.locator('.side.new ins').allTextContents()).toEqual(['two tests failed']);
      // Lines both answers share are shown unmarked on both sides; the payload's markup stays text.
      expect(await changed.locator('.side.old pre').textContent()).toBe('Build main\nall green\n<b>bold</b>');
      expect(await changed.locator('.side.new pre').textContent()).toBe('Build main\ntwo tests failed\n<b>bold</b>');
      expect(await changed.locator('b').count()).toBe(0);
      // Side by side: the new column starts to the right of the old one, on the same row.
      const oldBox = (await changed.locator('.side.old').boundingBox())!;
      const newBox = (await changed.locator('.side.new').boundingBox())!;
      expect(newBox.x).toBeGreaterThan(oldBox.x + oldBox.width - 1);
      expect(Math.abs(newBox.y - oldBox.y)).toBeLessThan(2);
      const dropped = page.locator('section.trial-event[data-delivery-id="d-dropped"]');
      expect(await dropped.locator('.change').textContent()).toBe('filtered out now');
      expect(await dropped.locator('.side.new .filtered').textContent()).toBe('ref is "refs/heads/docs", not "refs/heads/main"');
      expect(await dropped.locator('.side.old pre').textContent()).toBe('Docs only');
    });
    const missing = await page.goto(`${gw.url}/ui/trials/t-nope-000`);
    expect(missing?.status()).toBe(404);
  });
});

describe('lineDiff', () => {
  it('keeps shared lines and marks removed and added ones in order', () => {
    expect(lineDiff('a\nb\nc', 'a\nx\nc\nd')).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'x' },
      { kind: 'same', text: 'c' },
      { kind: 'added', text: 'd' },
    ]);
    expect(lineDiff('', 'new')).toEqual([{ kind: 'added', text: 'new' }]);
    expect(lineDiff('same', 'same')).toEqual([{ kind: 'same', text: 'same' }]);
  });
});
