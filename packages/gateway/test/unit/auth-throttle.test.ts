// The failed-authentication throttle and the client address behind proxies (issue 20 item 2), on a fake clock.
import { Writable } from 'node:stream';
import { AuthFailureThrottle } from '../../src/ingest/auth-throttle';
import { TrustedProxies, throttleKey, trustedProxyProblem } from '../../src/ingest/client-address';
import { createLogger } from '../../src/observe/logger';

function setup(limit: number) {
  let now = 1_000_000;
  const lines: Array<{ message: string; failures?: number }> = [];
  const stream = new Writable({
    write(chunk, _e, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const throttle = new AuthFailureThrottle({ limit, logger: createLogger({ stream, format: 'json' }), now: () => now });
  return { throttle, lines, advance: (ms: number) => (now += ms) };
}

describe('AuthFailureThrottle', () => {
  it('blocks a client after `limit` failures until its minute ends, with the seconds left', () => {
    const { throttle, advance } = setup(3);
    for (let i = 0; i < 3; i += 1) {
      expect(throttle.blockedFor('198.51.100.7')).toBe(0);
      throttle.failed('198.51.100.7', 'ci', 'Invalid signature');
    }
    expect(throttle.blockedFor('198.51.100.7')).toBe(60);
    expect(throttle.blockedFor('198.51.100.8')).toBe(0);
    advance(45_500);
    expect(throttle.blockedFor('198.51.100.7')).toBe(15);
    advance(14_500);
    expect(throttle.blockedFor('198.51.100.7')).toBe(0);
  });

  it('says to log the first failure of a window and sums the rest into one line per client', () => {
    const { throttle, lines, advance } = setup(0);
    expect(throttle.failed('203.0.113.1', 'ci', 'Invalid signature')).toBe(true);
    for (let i = 0; i < 9; i += 1) expect(throttle.failed('203.0.113.1', i % 2 ? 'ci' : 'cd', 'Invalid signature')).toBe(false);
    expect(throttle.blockedFor('203.0.113.1')).toBe(0); // limit 0: never blocked
    advance(60_000);
    throttle.flush();
    expect(lines).toHaveLength(1);
    expect(lines[0].message).toMatch(/^Invalid signature: 9 more failed authentication\(s\) from 203\.0\.113\.1 in 60 s on route\(s\) 'cd', 'ci'/);
    expect(lines[0].failures).toBe(10);
    // A new window logs its first failure again.
    expect(throttle.failed('203.0.113.1', 'ci', 'Invalid signature')).toBe(true);
  });

  it('always logs and never blocks a request without a known client address', () => {
    const { throttle } = setup(1);
    for (let i = 0; i < 5; i += 1) expect(throttle.failed(undefined, 'ci', 'Missing signature')).toBe(true);
    expect(throttle.blockedFor(undefined)).toBe(0);
  });

  it('counts an IPv6 client by its /64', () => {
    const { throttle } = setup(2);
    throttle.failed('2001:db8:1:2::1', 'ci', 'Invalid signature');
    throttle.failed('2001:db8:1:2:ffff::9', 'ci', 'Invalid signature');
    expect(throttle.blockedFor('2001:db8:1:2:abcd::1')).toBeGreaterThan(0);
    expect(throttle.blockedFor('2001:db8:1:3::1')).toBe(0);
  });
});

describe('client address', () => {
  it('keys IPv4 as is (also when mapped into IPv6) and IPv6 by its /64', () => {
    expect(throttleKey('::ffff:192.0.2.5')).toBe('192.0.2.5');
    expect(throttleKey('2001:0db8:0000:0042::7')).toBe('2001:db8:0:42::/64');
    expect(throttleKey('::1')).toBe('0:0:0:0::/64');
  });

  it('believes X-Forwarded-For only from trusted proxies, taking the nearest untrusted hop', () => {
    const none = new TrustedProxies([]);
    expect(none.clientOf('127.0.0.1', { 'x-forwarded-for': '203.0.113.9' })).toBe('127.0.0.1');
    const proxies = new TrustedProxies(['10.0.0.0/8', '::1']);
    expect(proxies.clientOf('10.1.2.3', { 'x-forwarded-for': '203.0.113.9' })).toBe('203.0.113.9');
    expect(proxies.clientOf('10.1.2.3', { 'x-forwarded-for': '192.0.2.1, 203.0.113.9, 10.9.9.9' })).toBe('203.0.113.9');
    expect(proxies.clientOf('::1', { 'x-forwarded-for': 'not-an-ip' })).toBe('::1');
    expect(proxies.clientOf('192.0.2.50', { 'x-forwarded-for': '203.0.113.9' })).toBe('192.0.2.50');
    expect(proxies.clientOf('10.1.2.3', {})).toBe('10.1.2.3');
  });

  it('explains a trusted_proxies entry that is not an address or range', () => {
    expect(trustedProxyProblem('10.0.0.0/8')).toBeUndefined();
    expect(trustedProxyProblem('fd00::/8')).toBeUndefined();
    expect(trustedProxyProblem('proxy.local')).toMatch(/is not an IP address or CIDR range/);
    expect(trustedProxyProblem('10.0.0.0/33')).toMatch(/prefix length must be 0-32/);
  });
});
