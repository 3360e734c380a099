// What conversation tests share: a stand-in agent whose answer shows the prompt it was given, and the check that a
// later turn's prompt holds the earlier turns in the order they happened.

/**
 * A command agent's script (node, CommonJS): it answers `ECHO[<the prompt it read on stdin>]`, so each answer shows
 * what the agent saw, and a later turn's prompt shows the earlier answers.
 */
export const ECHO_PROMPT_AGENT = `let p = ''; process.stdin.on('data', (c) => (p += c)).on('end', () => process.stdout.write('ECHO[' + p + ']'));\n`;

/** Asserts (jest) that each of `parts` occurs in `text`, in that order. */
export function expectInOrder(text: string, parts: string[]): void {
  const order = parts.map((part) => text.indexOf(part));
  expect(order.every((at) => at >= 0)).toBe(true);
  expect([...order].sort((a, b) => a - b)).toEqual(order);
}
