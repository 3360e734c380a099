// The matrix deliverer's conversation facet (issue 31): an answer to a rich reply is a rich reply; an answer to a
// message written in a thread goes into that thread (the thread's root kept in MessageRef.thread).
import { matrixPlatform } from '../../src';

const facet = matrixPlatform.createDeliverer(
  { token: 'matrix-token-0123', api_base: 'http://127.0.0.1:1' } as never,
  {
    logger: {
      error() {},
      warn() {},
      info() {},
      debug() {},
      child() {
        return this;
      },
    },
    redact() {},
    configDir: '/tmp',
    env: {},
    signal: new AbortController().signal,
  } as never,
).conversation!;

describe('matrix conversation facet', () => {
  it('answers a rich reply under the event and a thread message in its thread', () => {
    expect(facet.platform).toBe('matrix');
    expect(facet.replyExtra({ platform: 'matrix', chat: '!r:example.org', messageId: '$a1' }, { chat_id: '!old:example.org' })).toEqual({
      chat_id: '!r:example.org',
      reply_to_event_id: '$a1',
    });
    expect(facet.replyExtra({ platform: 'matrix', chat: '!r:example.org', messageId: '$root', thread: '$root' }, {})).toEqual({
      reply_to_event_id: '$root',
      thread_root_event_id: '$root',
    });
  });
});
