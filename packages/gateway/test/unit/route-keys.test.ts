// route-keys.ts: coalesce and concurrency keys rendered per event, bounded in length, and the templates refused.
import { MAX_KEY_LENGTH, boundedKey, routeKeyProblems, withRouteKeys } from '../../src/ingest/route-keys';
import { toRoute } from '../../src/routes/routes';

const input = (payload: unknown) => ({ route: 'prs', event: 'pull_request', deliveryId: 'd', payload, receivedAt: 0 });

describe('route keys', () => {
  it('renders the coalesce key (also the concurrency key by default) and carries window and mode', () => {
    const route = toRoute('prs', { coalesce: { key: '{repository.full_name}#{number}', window_seconds: 90, mode: 'all' } }, 'static');
    expect(withRouteKeys(route, input({ number: 7, repository: { full_name: 'octo/repo' } }))).toMatchObject({
      coalesce: { key: 'octo/repo#7', windowMs: 90_000, mode: 'all' },
      concurrencyKey: 'octo/repo#7',
    });
    expect(withRouteKeys(toRoute('plain', {}, 'static'), input({}))).not.toHaveProperty('coalesce');
  });

  it('cuts a long key to its start and a hash of the whole, so two long keys stay apart', () => {
    const a = boundedKey(`${'x'.repeat(300)}a`);
    const b = boundedKey(`${'x'.repeat(300)}b`);
    expect(a).toHaveLength(MAX_KEY_LENGTH);
    expect(a).not.toBe(b);
    expect(boundedKey('short')).toBe('short');
  });

  it('refuses {__raw__} and the coalesced job variables in a key template', () => {
    const route = toRoute('prs', { coalesce: { key: '{__raw__}', window_seconds: 5 }, concurrency_key: 'n{__event_count__}' }, 'static');
    expect(routeKeyProblems(route)).toEqual([
      expect.stringContaining("route 'prs' coalesce.key: {__raw__} cannot be part of a key"),
      expect.stringContaining("route 'prs' concurrency_key: {__event_count__} cannot be part of a key"),
    ]);
  });
});
