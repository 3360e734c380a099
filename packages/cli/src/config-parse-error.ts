// A config file that does not parse, as doctor shows it: the yaml package's message, position and excerpt (the
// lines around the error with a caret under it) on lines of their own, since a one-line table cell flattens them
// into something unreadable. The same parser as `gateway setup`, so the position is the one setup would report.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';

export interface ConfigParseError {
  file: string;
  /** The first line of the parser's message, without the position it repeats. */
  message: string;
  line: number;
  column: number;
  /** The lines around the error and a caret under it, as the parser shows them. */
  excerpt: string[];
}

/** The first syntax error of config.yaml (or .yml) in `configDir`; undefined when it parses or is absent. */
export function configParseError(configDir: string): ConfigParseError | undefined {
  for (const name of ['config.yaml', 'config.yml']) {
    const file = join(configDir, name);
    if (!existsSync(file)) continue;
    const doc = parseDocument(readFileSync(file, 'utf8'), { prettyErrors: true });
    const first = doc.errors[0];
    if (!first) return undefined;
    const [head, ...rest] = first.message.split('\n');
    const position = first.linePos?.[0] ?? { line: 0, col: 0 };
    return {
      file,
      message: head.replace(/ at line \d+, column \d+:?$/, ''),
      line: position.line,
      column: position.col,
      excerpt: rest.filter((text, i) => text.trim() !== '' || (i > 0 && i < rest.length - 1)).map((text) => text.trimEnd()),
    };
  }
  return undefined;
}
