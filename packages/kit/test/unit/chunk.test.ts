import fc from 'fast-check';
import { chunkText } from '@hookwise/kit/platform';

const fenceBalanced = (chunk: string) => (chunk.match(/^```/gm)?.length ?? 0) % 2 === 0;

describe('chunkText', () => {
  it('returns text that fits as one chunk', () => {
    expect(chunkText('hello\n\nworld  \n', 100)).toEqual(['hello\n\nworld']);
  });

  it('cuts at a paragraph break before a line break or a word', () => {
    const text = `${'a'.repeat(30)}\n\n${'b'.repeat(10)}\n${'c'.repeat(10)}`;
    expect(chunkText(text, 50)).toEqual(['a'.repeat(30), `${'b'.repeat(10)}\n${'c'.repeat(10)}`]);
  });

  it('cuts at a word boundary when a paragraph has no line breaks', () => {
    expect(chunkText('one two three four five six', 16)).toEqual(['one two three', 'four five six']);
  });

  it('hard-cuts a word longer than the limit without splitting a surrogate pair', () => {
    const chunks = chunkText('😀'.repeat(20), 17);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(17);
    expect(chunks.join('')).toBe('😀'.repeat(20));
  });

  it('closes a code fence at the end of a chunk and re-opens it with its language in the next', () => {
    const code = Array.from({ length: 12 }, (_, i) => `line ${i} = compute(${i});`).join('\n');
    const chunks = chunkText(`Here:\n\n\`\`\`ts\n${code}\n\`\`\`\n\nDone.`, 120);
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(120);
      expect(fenceBalanced(c)).toBe(true);
    }
    expect(chunks[1].startsWith('```ts\n')).toBe(true);
    expect(chunks[chunks.length - 1].endsWith('Done.')).toBe(true);
  });

  it('never exceeds the limit, never loses words and never leaves a fence open (property)', () => {
    const word = fc.stringMatching(/^[a-z0-9]{1,12}$/);
    const line = fc.array(word, { minLength: 0, maxLength: 8 }).map((w) => w.join(' '));
    const block = fc.oneof(
      fc.array(line, { minLength: 1, maxLength: 5 }).map((l) => l.join('\n')),
      fc.array(line, { minLength: 1, maxLength: 8 }).map((l) => `\`\`\`js\n${l.join('\n')}\n\`\`\``),
    );
    const doc = fc.array(block, { minLength: 1, maxLength: 12 }).map((b) => b.join('\n\n'));
    fc.assert(
      fc.property(doc, fc.integer({ min: 24, max: 200 }), (text, limit) => {
        const chunks = chunkText(text, limit);
        for (const c of chunks) {
          expect(c.length).toBeLessThanOrEqual(limit);
          expect(fenceBalanced(c)).toBe(true);
        }
        const words = (s: string) => s.split(/\s+/).filter((w) => w && !w.startsWith('```'));
        expect(words(chunks.join(' ')).join(' ')).toBe(words(text).join(' '));
      }),
      { numRuns: 300 },
    );
  });
});
