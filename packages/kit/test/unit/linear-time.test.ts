// Chunking and the markdown converters run in time linear in the answer's length, whatever the agent wrote:
// before, 40k spaces took 566 ms to chunk and 80 KB of "**a " 2.5 s to convert, on the event loop. Timed by
// CPU time (process.cpuUsage, the best of a few runs), so that a loaded machine's waiting does not count, and
// judged by growth ratios and generous bounds: a quadratic pass grows 8 times faster than these allow.
import fc from 'fast-check';
import { chunkText, markdownToHtml, markdownToMrkdwn, markdownToPlainText } from '@hookwise/kit/platform';

const CONVERTERS: Record<string, (text: string) => unknown> = {
  chunkText: (t) => chunkText(t, 2000),
  'chunkText utf8': (t) => chunkText(t, 2048, 'utf8'),
  markdownToPlainText,
  markdownToHtml,
  markdownToMrkdwn,
};

/** CPU milliseconds of `fn`, the best of `runs` (the first run also warms the code up). */
function cpuMs(fn: () => unknown, runs: number): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

/** `pattern` repeated to `size` characters. */
function repeatTo(pattern: string, size: number): string {
  return pattern.repeat(Math.ceil(size / pattern.length)).slice(0, size);
}

const MB = 1024 * 1024;

/** The inputs that were quadratic before (long runs, openers that never close), 1 MB each. */
const ADVERSARIAL: Record<string, string> = {
  'spaces between two words': `x${' '.repeat(MB - 2)}y`,
  '"**a " repeated': repeatTo('**a ', MB),
  'unclosed links': repeatTo('[a', MB),
  'unclosed images': repeatTo('![a](b ', MB),
  'unclosed autolinks': repeatTo('<http://a', MB),
  'a fence that never closes': `\`\`\`\`\n${repeatTo('```x\n', MB - 5)}`,
  'fence openers': repeatTo('```js\n', MB),
  'a heading of spaces': `# ${' '.repeat(MB - 3)}x`,
  'blank lines before a bullet': `${'\n'.repeat(MB - 3)}* x`,
  'underscores between words': repeatTo('_a ', MB),
  'strike openers': repeatTo('~~a ', MB),
};

/**
 * The CPU budget for 1 MB: 250 ms, or more on a machine that runs slower in this run than a quiet one (a busy CI
 * core): judged against a same-run reference, two linear passes over the same text, which take 1-2 ms when quiet.
 * A quiet run takes 5-30 ms; a loaded 2-core CI machine was seen at 60 ms; a quadratic pass over 1 MB takes minutes
 * (40k spaces took 566 ms before), so the bound still catches one by orders of magnitude.
 */
function budgetMs(text: string): number {
  const reference = cpuMs(() => Buffer.from(text, 'utf8').toString('latin1').split('\n').length, 5);
  return Math.max(250, 100 * reference);
}

describe('linear time', () => {
  it.each(Object.keys(ADVERSARIAL))('handles 1 MB of %s within 250 ms of CPU per converter (scaled by a same-run reference)', (name) => {
    const text = ADVERSARIAL[name];
    for (const [converter, convert] of Object.entries(CONVERTERS)) {
      const ms = cpuMs(() => convert(text), 5);
      const budget = budgetMs(text);
      if (ms > budget) throw new Error(`${converter} took ${ms.toFixed(1)} ms of CPU for 1 MB of ${name} (budget ${budget.toFixed(1)} ms)`);
    }
  });

  it('grows linearly with the length of any mix of markdown syntax (property)', () => {
    const token = fc.constantFrom(
      '**',
      '*',
      '__',
      '_',
      '~~',
      '`',
      '```',
      '~~~',
      '[',
      '](',
      ')',
      '![',
      '<http://',
      '<',
      '>',
      '&',
      '|',
      '#',
      '# ',
      '- ',
      '> ',
      ' ',
      '    ',
      '\t',
      '\n',
      '\n\n',
      'a',
      'word',
      '😀',
      'é',
    );
    const pattern = fc.array(token, { minLength: 1, maxLength: 10 }).map((tokens) => tokens.join(''));
    fc.assert(
      fc.property(pattern, (p) => {
        const small = repeatTo(p, 64 * 1024);
        const large = repeatTo(p, 512 * 1024);
        for (const [converter, convert] of Object.entries(CONVERTERS)) {
          const t1 = cpuMs(() => convert(small), 2);
          const t8 = cpuMs(() => convert(large), 2);
          // 8 times the text: linear is about 8 times the time, quadratic 64 times. The additive slack absorbs
          // timer granularity and a garbage collection landing in one run.
          if (t8 > 24 * t1 + 40) throw new Error(`${converter} on ${JSON.stringify(p)}: 64 KB took ${t1.toFixed(1)} ms, 512 KB ${t8.toFixed(1)} ms`);
        }
      }),
      { numRuns: 15 },
    );
  });
});
