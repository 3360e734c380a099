// Runs once before the test suite: gives every test process an empty home and no HOOKWISE_HOME (so no test reads the
// developer's own setup), and provides the services the tests start themselves (redis-server), installing it
// where the run may (root on Debian), or stops the run at once with the one command to run instead of letting every
// Redis test fail on its own.
import type { Config } from 'jest';
import { ensureRedisServer } from '../packages/testing/src/redis-server';
import { isolateHome } from './jest-hermetic-home';

export default function globalSetup(globalConfig: Config & { testPathPattern?: string }): void {
  isolateHome();
  const redis = ensureRedisServer();
  if (redis.ok) return;
  // A run of chosen files (npx jest packages/cli) may well need no Redis: say it, and let those tests decide.
  if (globalConfig.testPathPattern) {
    process.stderr.write(`\nwarning: ${redis.message}\n`);
    return;
  }
  throw new Error(`the test suite cannot run: ${redis.message}`);
}
