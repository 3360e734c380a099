// Which resolved addresses count as internal: IPv6 forms that carry an IPv4 address are decided by that
// address, so a name pointed at 64:ff9b::7f00:1 or 2002:7f00:1:: cannot reach the gateway's loopback.
import { embeddedIPv4, isInternalAddress } from '../../src/network-rules';

test.each([
  ['NAT64 with an embedded loopback', '64:ff9b::127.0.0.1'],
  ['NAT64 with an embedded loopback, hex', '64:ff9b::7f00:1'],
  ['NAT64 with embedded cloud metadata', '64:ff9b::a9fe:a9fe'],
  ['NAT64 with an embedded private address', '64:ff9b::10.0.0.5'],
  ['IPv4-compatible loopback', '::127.0.0.1'],
  ['IPv4-compatible private address, hex', '::c0a8:101'],
  ['6to4 of a loopback', '2002:7f00:1::'],
  ['6to4 of cloud metadata', '2002:a9fe:a9fe::1'],
  ['6to4 of a private address', '2002:c0a8:101:0:0:0:0:1'],
  ['site-local', 'fec0::1'],
  ['site-local, upper end', 'feff:ffff::1'],
  ['IPv4-mapped loopback, hex', '::ffff:7f00:1'],
  ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
  ['NAT64 for local use', '64:ff9b:1::8.8.8.8'],
])('%s (%s) is internal', (_what, address) => {
  expect(isInternalAddress(address)).toBe(true);
});

test.each([
  ['NAT64 of a public address', '64:ff9b::93.184.216.34'],
  ['NAT64 of a public address, hex', '64:ff9b::5db8:d822'],
  ['IPv4-compatible public address', '::93.184.216.34'],
  ['6to4 of a public address', '2002:5db8:d822::1'],
  ['a global unicast address', '2606:4700::1111'],
])('%s (%s) is public', (_what, address) => {
  expect(isInternalAddress(address)).toBe(false);
});

test('reads the IPv4 address out of each embedding, and none out of other addresses', () => {
  expect(embeddedIPv4('64:ff9b::7f00:1')).toBe('127.0.0.1');
  expect(embeddedIPv4('::10.1.2.3')).toBe('10.1.2.3');
  expect(embeddedIPv4('2002:a9fe:a9fe::')).toBe('169.254.169.254');
  expect(embeddedIPv4('::ffff:c0a8:0101')).toBe('192.168.1.1');
  expect(embeddedIPv4('::1')).toBeUndefined();
  expect(embeddedIPv4('::')).toBeUndefined();
  expect(embeddedIPv4('2606:4700::1111')).toBeUndefined();
  expect(embeddedIPv4('fe80::1%eth0')).toBeUndefined();
});
