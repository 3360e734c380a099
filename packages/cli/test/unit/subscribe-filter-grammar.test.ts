// `webhook subscribe --filter` writes the request paths and the added tests (issue 36): contains (*=), in_file
// (@=), missing (!path?) and not:<form>, and describes them back the way they are written.
import { describeFilterTest, parseFilterFlag } from '../../src/subscribe-route-flags';
import { RouteFlagError } from '../../src/route-flag-error';

describe('--filter grammar', () => {
  it.each([
    ['headers.user-agent~=^GitHub-Hookshot/', { path: 'headers.user-agent', matches: '^GitHub-Hookshot/' }],
    ['event=pull_request|issues', { path: 'event', in: ['pull_request', 'issues'] }],
    ['pull_request.title*=[skip ci]', { path: 'pull_request.title', contains: '[skip ci]' }],
    ['sender.login@=maintainers.txt', { path: 'sender.login', in_file: 'maintainers.txt' }],
    ['!pull_request.merged_by?', { path: 'pull_request.merged_by', exists: false }],
    ['not:sender.login@=bots.txt', { not: { path: 'sender.login', in_file: 'bots.txt' } }],
    ['not:action=closed', { not: { path: 'action', equals: 'closed' } }],
  ])('%s', (flag, test) => {
    expect(parseFilterFlag(flag)).toEqual(test);
    expect(describeFilterTest(parseFilterFlag(flag))).toBe(flag);
  });

  it('describes the config forms a flag does not write', () => {
    expect(describeFilterTest({ path: 'pull_request.merged_by', missing: true })).toBe('!pull_request.merged_by?');
    expect(describeFilterTest({ path: 'action', not: { equals: 'closed' } })).toBe('not:action=closed');
  });

  it('refuses an empty in_file name with an example', () => {
    expect(() => parseFilterFlag('sender.login@=')).toThrow(RouteFlagError);
    expect(() => parseFilterFlag('sender.login@=')).toThrow(/e\.g\. --filter 'sender\.login@=maintainers\.txt'/);
  });
});
