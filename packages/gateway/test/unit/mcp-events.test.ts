// The MCP Events server's small parts: which event types a client's patterns grant, the cursor's round trip, and
// the client tokens (read from the environment, refused when missing, short or shared, matched only whole).
import { decodeCursor, encodeCursor } from '../../src/mcp-events/event-cursor';
import { EventGrant } from '../../src/mcp-events/event-types';
import { McpClients } from '../../src/mcp-events/mcp-clients';

const type = (name: string) => ({ name, route: name.split('/')[0] });

describe('EventGrant', () => {
  it('grants a route whole with its <route>/<event> types, and globs within a name part', () => {
    const prs = new EventGrant(['prs']);
    expect(prs.allows(type('prs'))).toBe(true);
    expect(prs.allows(type('prs/pull_request'))).toBe(true);
    expect(prs.allows(type('prs2'))).toBe(false);
    const ci = new EventGrant(['ci-*', 'deploys/release']);
    expect(ci.allows(type('ci-builds'))).toBe(true);
    expect(ci.allows(type('deploys/release'))).toBe(true);
    expect(ci.allows(type('deploys'))).toBe(false);
    expect(ci.allows(type('deploys/push'))).toBe(false);
    expect(new EventGrant(['*']).allows(type('anything/at_all'))).toBe(true);
    // Regular-expression characters in a pattern are literal.
    expect(new EventGrant(['a.b']).allows(type('axb'))).toBe(false);
  });
});

describe('event cursors', () => {
  it('round-trips a position and refuses anything else', () => {
    const cursor = encodeCursor({ t: 1_700_000_000_000, id: '0190-abc' });
    expect(decodeCursor(cursor)).toEqual({ t: 1_700_000_000_000, id: '0190-abc' });
    for (const bad of [
      '',
      'hw1.',
      'hw1.!!!',
      `hw1.${Buffer.from('[1]').toString('base64url')}`,
      `hw1.${Buffer.from('[-1,"x"]').toString('base64url')}`,
      'other',
    ])
      expect(decodeCursor(bad)).toBeUndefined();
  });
});

describe('McpClients', () => {
  const config = { clients: { alice: { token_env: 'A_TOKEN', events: ['prs'] }, bob: { token_env: 'B_TOKEN', events: ['*'] } } };

  it('finds the client by its whole bearer token only', () => {
    const clients = new McpClients(config, { A_TOKEN: 'alice-token-0123456789', B_TOKEN: 'bob-token-0123456789' });
    expect(clients.problems).toEqual([]);
    expect(clients.authenticate('Bearer alice-token-0123456789')?.name).toBe('alice');
    expect(clients.authenticate('bearer bob-token-0123456789')?.name).toBe('bob');
    for (const header of [
      undefined,
      '',
      'Bearer',
      'alice-token-0123456789',
      'Bearer alice-token-012345678',
      'Bearer alice-token-0123456789x',
      'Basic alice-token-0123456789',
    ])
      expect(clients.authenticate(header)).toBeUndefined();
  });

  it('names the variable, never the token, when a token is missing, short or shared', () => {
    expect(new McpClients(config, {}).problems).toEqual([
      expect.stringContaining('mcp.clients.alice.token_env: the environment variable A_TOKEN is not set'),
      expect.stringContaining('mcp.clients.bob.token_env: the environment variable B_TOKEN is not set'),
    ]);
    const short = new McpClients(config, { A_TOKEN: 'short', B_TOKEN: 'bob-token-0123456789' });
    expect(short.problems).toEqual([expect.stringContaining('A_TOKEN is shorter than 16')]);
    expect(short.problems.join()).not.toContain('short,');
    const shared = new McpClients(config, { A_TOKEN: 'same-token-0123456789', B_TOKEN: 'same-token-0123456789' });
    expect(shared.problems).toEqual([expect.stringContaining('B_TOKEN holds the same token as another client')]);
    expect(shared.problems.join()).not.toContain('same-token');
  });

  it('is not configured without clients', () => {
    expect(new McpClients(undefined, {}).configured).toBe(false);
    expect(new McpClients({ clients: {} }, {}).configured).toBe(false);
  });
});
