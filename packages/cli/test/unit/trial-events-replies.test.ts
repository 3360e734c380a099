// Which stored events `routes try --last N` runs on: the jobs that continued a conversation (a person's reply, which
// ran with the conversation's prompt, not the route's) are left out unless `--include replies` asks for them.
import type { Job } from '@hookwise/core';
import { pickTrialEvents } from '../../src/trial-events';

const job = (n: number, extra: Partial<Job> = {}): Job =>
  ({
    id: `job-${n}`,
    route: 'alerts',
    event: 'webhook',
    payload: {},
    deliveryId: `alert-${n}`,
    receivedAt: 1000 - n,
    status: 'done',
    attempts: 1,
    step: 'deliver',
    answer: `answer ${n}`,
    errors: [],
    runAt: 0,
    createdAt: 0,
    updatedAt: 0,
    ...extra,
  }) as Job;

// Newest first, as the store lists them: two replies (their delivery ids name the inbound route) among events.
const jobs = [
  job(1),
  job(2, { deliveryId: 'tg:50002', concurrencyKey: 'conversation:job-1' }),
  job(3, { concurrencyKey: 'repo:octo/hello' }),
  job(4, { deliveryId: 'tg:50001', concurrencyKey: 'conversation:job-3' }),
  job(5),
];

describe('routes try: the events of --last N', () => {
  it('leaves conversation replies out, so --last counts events of the route', () => {
    expect(pickTrialEvents(jobs, { last: 3 }).map((j) => j.deliveryId)).toEqual(['alert-1', 'alert-3', 'alert-5']);
  });

  it('takes them in with --include replies', () => {
    expect(pickTrialEvents(jobs, { last: 3, include: ['replies'] }).map((j) => j.deliveryId)).toEqual(['alert-1', 'tg:50002', 'alert-3']);
  });
});
