// webhook subscribe --transform-* (issue 36): the flags written as the subscription's `transform:`, kept when not
// given, replaced by the other kind, removed by '', and the wrong values refused with an example.
import type { SubscriptionEntry } from '@hookwise/gateway';
import { applyRouteFlags } from '../../src/subscribe-route-flags';
import { RouteFlagError } from '../../src/route-flag-error';
import { describeTransform, parseTransformCommand } from '../../src/subscribe-transform-flags';

const base = (): SubscriptionEntry => ({ events: [], skills: [], deliver: 'log', deliver_extra: {}, created_at: 'x', updated_at: 'x' });

describe('--transform-command', () => {
  it('takes a JSON array as written, or words split at blanks', () => {
    expect(parseTransformCommand('["node", "/opt/hooks/slim pr.js"]')).toEqual(['node', '/opt/hooks/slim pr.js']);
    expect(parseTransformCommand('  jq -c .pull_request  ')).toEqual(['jq', '-c', '.pull_request']);
  });

  it.each([
    ['[node', /not a JSON array/],
    ['[]', /non-empty JSON array of strings/],
    ['["node", 1]', /non-empty JSON array of strings/],
    ["jq -c '{title: .title}'", /write the arguments as a JSON array/],
  ])('refuses %s', (text, message) => {
    expect(() => parseTransformCommand(text)).toThrow(RouteFlagError);
    expect(() => parseTransformCommand(text)).toThrow(message);
  });
});

describe('applyRouteFlags with the transform flags', () => {
  it('writes an expression with its limits, keeps it on an update without the flags, and a command replaces it', () => {
    const made = applyRouteFlags(
      base(),
      { 'transform-expression': '{"title": pull_request.title}', 'transform-timeout': '2.5', 'transform-on-failure': 'reject' },
      undefined,
    );
    expect(made.transform).toEqual({ expression: '{"title": pull_request.title}', timeout_seconds: 2.5, on_failure: 'reject' });
    expect(applyRouteFlags(base(), { 'silent-marker': 'x' }, made).transform).toEqual(made.transform);
    const command = applyRouteFlags(base(), { 'transform-command': '["node","slim.js"]' }, made);
    expect(command.transform).toEqual({ command: ['node', 'slim.js'], timeout_seconds: 2.5, on_failure: 'reject' });
    expect(describeTransform(command.transform!)).toBe('command ["node","slim.js"] (2.5 s, on failure: reject)');
    expect(applyRouteFlags(base(), { 'transform-timeout': '10' }, command).transform).toEqual({ ...command.transform, timeout_seconds: 10 });
  });

  it("'' removes the transform", () => {
    const made = applyRouteFlags(base(), { 'transform-expression': 'pull_request' }, undefined);
    expect(applyRouteFlags(base(), { 'transform-expression': '' }, made)).not.toHaveProperty('transform');
    expect(applyRouteFlags(base(), { 'transform-command': ' ' }, made)).not.toHaveProperty('transform');
  });

  it.each([
    [{ 'transform-expression': 'a', 'transform-command': 'b' }, /not both/],
    [{ 'transform-timeout': '5' }, /need a transform: add --transform-expression or --transform-command/],
    [{ 'transform-expression': 'a', 'transform-timeout': '61' }, /at most 60; got '61'/],
    [{ 'transform-expression': 'a', 'transform-timeout': '0' }, /more than 0/],
    [{ 'transform-expression': 'a', 'transform-on-failure': 'drop' }, /accept or reject; got 'drop'/],
    [{ 'transform-expression': '', 'transform-on-failure': 'reject' }, /an empty transform removes it/],
  ])('refuses %j', (flags, message) => {
    expect(() => applyRouteFlags(base(), flags, undefined)).toThrow(message);
  });
});
