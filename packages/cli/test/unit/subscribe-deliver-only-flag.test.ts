// webhook subscribe --deliver-only (issue 36): written as deliver_only: true, kept when not given, removed by --no-deliver-only.
import type { SubscriptionEntry } from '@hookwise/gateway';
import { applyRouteFlags } from '../../src/subscribe-route-flags';

const base = (): SubscriptionEntry => ({ events: [], skills: [], deliver: 'log', deliver_extra: {}, created_at: 'x', updated_at: 'x' });

it('--deliver-only sets deliver_only, an update without it keeps it, --no-deliver-only removes it', () => {
  const made = applyRouteFlags(base(), { 'deliver-only': true }, undefined);
  expect(made.deliver_only).toBe(true);
  expect(applyRouteFlags(base(), {}, made).deliver_only).toBe(true);
  expect(applyRouteFlags(base(), { 'deliver-only': false }, made)).not.toHaveProperty('deliver_only');
});
