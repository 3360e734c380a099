// Usage summing and reading, the toolbox's call path (never throwing, JSON arguments), output capping and the
// rendering of MCP results: the parts of the API runners' shared code that need no server.
import { AgentToolbox, addUsage, usageFromAnthropic, usageFromOpenAI } from '@hookwise/agent-kit';
import { capToolOutput } from '../../src/agent-tools';
import { renderCallResult } from '../../src/mcp-client';

describe('token usage', () => {
  it('adds field by field and keeps unknown fields absent', () => {
    expect(addUsage(undefined, undefined)).toBeUndefined();
    expect(addUsage({ inputTokens: 10 }, undefined)).toEqual({ inputTokens: 10 });
    expect(addUsage({ inputTokens: 10, outputTokens: 2 }, { inputTokens: 5, cachedInputTokens: 3 })).toEqual({
      inputTokens: 15,
      outputTokens: 2,
      cachedInputTokens: 3,
    });
  });

  it('reads OpenAI usage (cached tokens are part of prompt_tokens) and Anthropic usage (cache tokens added to input)', () => {
    expect(usageFromOpenAI({ prompt_tokens: 2006, completion_tokens: 300, total_tokens: 2306, prompt_tokens_details: { cached_tokens: 1920 } })).toEqual({
      inputTokens: 2006,
      outputTokens: 300,
      cachedInputTokens: 1920,
    });
    expect(usageFromOpenAI({ prompt_tokens: null, completion_tokens: 'many' })).toBeUndefined();
    expect(usageFromOpenAI(undefined)).toBeUndefined();
    expect(usageFromAnthropic({ cache_creation_input_tokens: 188086, cache_read_input_tokens: 0, input_tokens: 21, output_tokens: 393 })).toEqual({
      inputTokens: 188107,
      outputTokens: 393,
      cachedInputTokens: 0,
      cacheWriteTokens: 188086,
    });
    expect(usageFromAnthropic({ input_tokens: 2095, output_tokens: 503 })).toEqual({ inputTokens: 2095, outputTokens: 503 });
  });
});

describe('AgentToolbox', () => {
  const echo = {
    definition: { name: 'echo', description: 'Echoes', inputSchema: { type: 'object' } },
    run: async (input: Record<string, unknown>) => ({ content: JSON.stringify(input), isError: false }),
  };
  const broken = {
    definition: { name: 'broken', description: 'Throws', inputSchema: { type: 'object' } },
    run: async () => Promise.reject(new Error('disk full')),
  };
  const box = new AgentToolbox([echo, broken]);
  const signal = new AbortController().signal;

  it('takes arguments as an object or as JSON text, and turns every failure into an error the model reads', async () => {
    expect(await box.call('echo', { a: 1 }, signal)).toEqual({ content: '{"a":1}', isError: false });
    expect(await box.call('echo', '{"b":2}', signal)).toEqual({ content: '{"b":2}', isError: false });
    expect(await box.call('echo', '', signal)).toEqual({ content: '{}', isError: false });
    expect(await box.call('echo', '{not json', signal)).toMatchObject({ isError: true, content: expect.stringContaining('not valid JSON') });
    expect(await box.call('echo', '[1]', signal)).toMatchObject({ isError: true, content: expect.stringContaining('must be a JSON object') });
    expect(await box.call('nope', {}, signal)).toEqual({ content: 'error: there is no tool named "nope"; the tools are: echo, broken', isError: true });
    expect(await box.call('broken', {}, signal)).toEqual({ content: 'error: broken failed: disk full', isError: true });
  });
});

describe('tool output', () => {
  it('is cut at a byte limit without splitting a character', () => {
    expect(capToolOutput('short', 10)).toBe('short');
    // "é" is two bytes: a cut after 3 bytes keeps "aé" rather than half of the second "é".
    expect(capToolOutput('aéé', 4)).toBe('aé\n[output cut at 4 bytes]');
  });

  it('renders MCP results: text as it is, binary content named, errors marked', () => {
    expect(
      renderCallResult({
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      }),
    ).toBe('one\ntwo');
    expect(renderCallResult({ content: [{ type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' }] })).toBe(
      '[image (image/png), 8 characters of base64, not shown]',
    );
    expect(renderCallResult({ content: [{ type: 'resource', resource: { uri: 'file:///a.txt', text: 'hello' } }] })).toBe('[resource file:///a.txt]\nhello');
    expect(renderCallResult({ content: [], structuredContent: { ok: true } })).toBe('{"ok":true}');
    expect(renderCallResult({ content: [{ type: 'text', text: 'no such file' }], isError: true })).toBe('error: no such file');
  });
});
