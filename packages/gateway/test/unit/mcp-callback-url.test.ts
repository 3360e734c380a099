// Where an MCP Events subscriber's callback may point: https to public addresses; this machine only when
// mcp.webhooks.allow_loopback says so (over http too); never internal addresses, credentials in the URL, or other schemes.
import { callbackReachProblem, parseCallbackUrl } from '../../src/mcp-events/callback-url';

const strict = { allowLoopback: false };
const loopback = { allowLoopback: true };

describe('parseCallbackUrl', () => {
  it('takes https URLs and refuses other schemes, credentials and non-URLs', () => {
    expect(parseCallbackUrl('https://hooks.example.com/mcp?k=1', strict)).toBeInstanceOf(URL);
    expect(parseCallbackUrl('http://hooks.example.com/mcp', strict)).toBe('delivery.url: the callback must be https');
    expect(parseCallbackUrl('ftp://hooks.example.com/', strict)).toBe('delivery.url: the callback must be https');
    expect(parseCallbackUrl('https://user:pw@hooks.example.com/', strict)).toMatch(/credentials in the URL/);
    expect(parseCallbackUrl('nope', strict)).toMatch(/not a URL/);
    expect(parseCallbackUrl(undefined, strict)).toMatch(/required/);
    expect(parseCallbackUrl(`https://example.com/${'a'.repeat(3000)}`, strict)).toMatch(/at most/);
  });

  it('refuses this machine unless allow_loopback, which also lets it be plain http', () => {
    for (const url of ['http://127.0.0.1:9/x', 'https://localhost/x', 'http://[::1]:9/x']) {
      expect(parseCallbackUrl(url, strict)).toMatch(/this machine/);
      expect(parseCallbackUrl(url, loopback)).toBeInstanceOf(URL);
    }
  });
});

describe('callbackReachProblem', () => {
  it('refuses hosts that resolve to internal addresses (private, link-local, mapped loopback)', async () => {
    for (const host of ['10.1.2.3', '192.168.0.1', '169.254.169.254', '[fd00::1]', '[::ffff:127.0.0.1]']) {
      expect(await callbackReachProblem(new URL(`https://${host}/x`), loopback)).toBeDefined();
    }
    expect(await callbackReachProblem(new URL('https://127.0.0.1/x'), strict)).toMatch(/resolves to this machine/);
    expect(await callbackReachProblem(new URL('https://127.0.0.1/x'), loopback)).toBeUndefined();
    expect(await callbackReachProblem(new URL('https://93.184.215.14/x'), strict)).toBeUndefined();
  });
});
