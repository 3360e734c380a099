// Standard Webhooks secrets, read in one place for notify: targets, MCP Events subscriptions and the mcp-events
// source: whole base64 only (Buffer decodes 41 characters to 30 bytes where a receiver's library refuses them),
// and the bounds of each use on top.
import { newWebhookSecret, notifyKey, notifyProblems } from '../../src/observe/lifecycle-webhooks';
import { isSubscriptionSecret } from '../../src/mcp-events/subscribe-params';

describe('Standard Webhooks secrets', () => {
  it('reads whsec_ and bare base64 keys of 16 bytes or more, and only whole base64', () => {
    const fresh = newWebhookSecret();
    expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(notifyKey(fresh)).toHaveLength(32);
    expect(notifyKey(fresh.slice('whsec_'.length))).toHaveLength(32);
    expect(notifyKey(fresh.replace(/=$/, ''))).toHaveLength(32);
    expect(notifyKey(`whsec_${'A'.repeat(41)}`)).toBeUndefined();
    expect(notifyKey(`whsec_${Buffer.alloc(15).toString('base64')}`)).toBeUndefined();
    expect(notifyProblems([{ url: 'https://example.com/hook', secret: `whsec_${'A'.repeat(41)}` } as never])).toHaveLength(1);
  });

  it('takes as a subscription secret a whsec_ key of 24 to 64 bytes', () => {
    expect(isSubscriptionSecret(newWebhookSecret())).toBe(true);
    expect(isSubscriptionSecret(`whsec_${Buffer.alloc(23).toString('base64')}`)).toBe(false);
    expect(isSubscriptionSecret(`whsec_${Buffer.alloc(65).toString('base64')}`)).toBe(false);
    expect(isSubscriptionSecret(Buffer.alloc(32).toString('base64'))).toBe(false);
    expect(isSubscriptionSecret(undefined)).toBe(false);
  });
});
