// Out of file descriptors during a run (each egress tunnel costs the gateway two): a spawn or connect that hits
// EMFILE must be a retryable failure that says what happened, not a TypeError from a child without pipes that the
// command runner turned into "could not be started" and dead-lettered. The fds are used up for real here, in this
// process, for the few milliseconds of each check.
import { closeSync, openSync } from 'node:fs';
import net from 'node:net';
import { HookwiseError, isRetryable } from '@hookwise/core';
import { runProcess } from '@hookwise/kit';
import { fdExhaustionOf } from '@hookwise/sandbox';
import { fdExhaustionFailure } from '../../src/jobs/agent-sandbox';

/** Runs `attempt` with every free file descriptor of this process taken; they are given back before returning. */
async function withoutFreeFds<T>(attempt: () => Promise<T>): Promise<T> {
  const held: number[] = [];
  try {
    for (;;) held.push(openSync('/dev/null', 'r'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EMFILE') throw err;
  }
  try {
    return await attempt();
  } finally {
    for (const fd of held) closeSync(fd);
  }
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err,
  );

describe('file descriptors running out during a run', () => {
  it('a spawn under EMFILE rejects with the EMFILE error, and the wrapped failure becomes retryable with a clear message', async () => {
    const err = await withoutFreeFds(() => failureOf(runProcess({ command: '/bin/true', timeoutMs: 5000 })));
    expect(err).not.toBeInstanceOf(TypeError);
    expect((err as NodeJS.ErrnoException).code).toBe('EMFILE');
    // What the command runner throws for a failed spawn: not retryable, "check that it is installed".
    const wrapped = new HookwiseError('HW_E_AGENT', `agent command '/bin/true' could not be started: ${(err as Error).message}; check that it is installed`, {
      retryable: false,
      cause: err,
    });
    const failure = fdExhaustionFailure(wrapped, "agent run of d-1 on route 'ci'");
    expect(failure).toBeInstanceOf(HookwiseError);
    expect(isRetryable(failure)).toBe(true);
    expect(failure!.message).toMatch(
      /^agent run of d-1 on route 'ci' failed: the gateway ran out of file descriptors \(EMFILE: its open-file limit\); it is retried\. Raise the limit/,
    );
  });

  it('a connect under EMFILE is recognised too; ENFILE as well; other failures are left as they are', async () => {
    const err = await withoutFreeFds(
      () =>
        new Promise<unknown>((resolve) => {
          const socket = net.connect({ host: '127.0.0.1', port: 9 });
          socket.once('error', resolve);
          socket.once('connect', () => resolve(socket.destroy()));
        }),
    );
    expect(fdExhaustionOf(err)).toBe('EMFILE');
    expect(isRetryable(fdExhaustionFailure(new Error('wrapped', { cause: err }), 'agent run'))).toBe(true);
    expect(fdExhaustionFailure(Object.assign(new Error('spawn ENFILE'), { code: 'ENFILE' }), 'agent run')?.message).toContain('(ENFILE)');
    expect(fdExhaustionFailure(new AggregateError([Object.assign(new Error('x'), { code: 'EMFILE' })]), 'agent run')).toBeDefined();
    expect(fdExhaustionFailure(Object.assign(new Error('spawn x ENOENT'), { code: 'ENOENT' }), 'agent run')).toBeUndefined();
    expect(fdExhaustionFailure(new TypeError("Cannot read properties of undefined (reading 'on')"), 'agent run')).toBeUndefined();
  });
});
