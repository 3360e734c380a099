// Runs an ESM-only signing SDK (e.g. @octokit/webhooks-methods) in a child Node process: jest's module system
// cannot import ESM-only packages, and signing with the sender's own code is the point of the test.
import { execFileSync } from 'node:child_process';

/**
 * Evaluates `expression` (an async expression over `args`, with `names` imported from `specifier`) in a real
 * Node process started from the repository root, and returns its string result.
 */
export function runEsm(specifier: string, names: readonly string[], expression: string, args: unknown): string {
  const script = `import { ${names.join(', ')} } from ${JSON.stringify(specifier)};\nconst args = JSON.parse(process.argv[1]);\nprocess.stdout.write(String(await (${expression})));`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(args)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}
