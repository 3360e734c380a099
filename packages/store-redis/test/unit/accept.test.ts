// The Redis store's accept on a real redis-server: one script, one round trip; a claimed id never without its job;
// duplicates run once across gateways; claims left pending by gateways of older versions are still honoured.
import { DELIVERY_ID_TTL_MS } from '@hookwise/core';
import { type AcceptOutcome, type AcceptRequest } from '@hookwise/core';
import { jobInput } from '@hookwise/testing';
import type { Redis } from 'ioredis';
import type { RedisStore } from '../../src';
import { MAX_GROUP } from '../../src/accept-scripts';
import { connectionOf, sleep, useRedisFixture } from '../redis-fixture';

function acceptRequest(overrides: Partial<AcceptRequest> = {}): AcceptRequest {
  const job = jobInput(overrides.deliveryId ? { deliveryId: overrides.deliveryId } : {});
  return { route: job.route, deliveryId: job.deliveryId, rateLimit: 1000, maxPending: 1000, job, ...overrides };
}

/** Counts the commands `store` sends to Redis while `body` runs. */
async function commandsSent(store: RedisStore, body: () => Promise<unknown>): Promise<string[]> {
  const client: Redis = connectionOf(store);
  const sent: string[] = [];
  const send = client.sendCommand.bind(client);
  const spy = jest.spyOn(client, 'sendCommand').mockImplementation((command, stream) => {
    sent.push(command.name);
    return send(command, stream);
  });
  try {
    await body();
  } finally {
    spy.mockRestore();
  }
  return sent;
}

describe('Redis store accept (real redis-server)', () => {
  const redis = useRedisFixture();
  const claimKey = (request: AcceptRequest): string => `${redis.prefix()}:delivery-id:${request.route}:${request.deliveryId}`;

  it('accepts an event with one command to Redis, and peeks at a roomy window without one', async () => {
    const [store] = await redis.gateways('one-trip', 1);
    // The first call of a new queue also has bullmq record its version in the queue's meta hash, once.
    await store.accept(acceptRequest());
    const request = acceptRequest();
    let outcome: unknown;
    expect(await commandsSent(store, async () => (outcome = await store.accept(request)))).toEqual(['evalsha']);
    expect(outcome).toMatchObject({ outcome: 'accepted' });
    expect(await connectionOf(store).get(claimKey(request))).toBe(`job:${(outcome as { jobId: string }).jobId}`);
    expect(await connectionOf(store).pttl(claimKey(request))).toBeGreaterThan(DELIVERY_ID_TTL_MS - 60_000);
    // 999 of 1000 left as that accept saw it: the pipeline's early peek needs no round trip.
    expect(await commandsSent(store, async () => expect((await store.rateLimiter.check(request.route, 1000)).allowed).toBe(true))).toEqual([]);
    // A small window is always asked (exact across gateways); so is a duplicate's accept.
    expect(await commandsSent(store, () => store.rateLimiter.check(request.route, 5))).toEqual(['evalsha']);
    expect(await store.accept(request)).toEqual({ outcome: 'duplicate' });
  });

  it('answers a full window without Redis once an accept found it full, until the window ends', async () => {
    const [a, b] = await redis.gateways('full-window', 2);
    const first = acceptRequest({ rateLimit: 1 });
    expect((await b.accept(first)).outcome).toBe('accepted');
    expect(await a.accept(acceptRequest({ rateLimit: 1 }))).toMatchObject({ outcome: 'rate_limited' });
    expect(await commandsSent(a, async () => expect((await a.rateLimiter.check(first.route, 1)).allowed).toBe(false))).toEqual([]);
  });

  it('remembers nothing when the script fails before the job is stored, so the retry is accepted', async () => {
    const [store] = await redis.gateways('script-fails', 1);
    const request = acceptRequest();
    await connectionOf(store).set(`${redis.prefix()}:jobs:meta`, 'not a hash');
    await expect(store.accept(request)).rejects.toThrow(/WRONGTYPE/);
    expect(await connectionOf(store).exists(claimKey(request), `${redis.prefix()}:job-by-delivery:${request.deliveryId}`)).toBe(0);
    await connectionOf(store).del(`${redis.prefix()}:jobs:meta`);
    expect((await store.accept(request)).outcome).toBe('accepted');
  });

  it('keeps sender-chosen text exact: multi-byte characters and the packed argument’s own separators', async () => {
    // Each accept travels as one packed argument whose fields are counted in UTF-8 bytes (packAccept).
    const [store] = await redis.gateways('packed-text', 1);
    const deliveryId = 'ü;1,2;😀 \t';
    const payloadJson = '{"title":"Grüße ; , 😀","nested":{"empty":[]}}';
    const payload = JSON.parse(payloadJson) as Record<string, unknown>;
    const job = jobInput({ deliveryId, payload });
    const request = acceptRequest({ deliveryId, job, hints: { payloadJson } });
    const [first, again] = await Promise.all([store.accept(request), store.accept(acceptRequest({ deliveryId, job }))]);
    expect(first).toMatchObject({ outcome: 'accepted' });
    expect(again).toEqual({ outcome: 'duplicate' });
    const jobId = (first as { jobId: string }).jobId;
    expect(await connectionOf(store).get(claimKey(request))).toBe(`job:${jobId}`);
    const stored = await store.jobs.get(jobId);
    expect(stored).toMatchObject({ deliveryId, payload, route: job.route });
    expect(await store.jobs.findByDeliveryId(deliveryId)).toMatchObject({ id: jobId });
  });

  describe('the accepts of one event-loop turn, sent together', () => {
    // After a first accept (pending 1, 1 hit in the window): every kind of answer, in an order where each depends on the ones before.
    const turn = (): AcceptRequest[] => {
      const first = acceptRequest();
      return [
        first,
        acceptRequest({ deliveryId: first.deliveryId }),
        acceptRequest({ job: undefined }),
        acceptRequest({ maxPending: 3 }),
        acceptRequest({ maxPending: 3 }),
        acceptRequest({ rateLimit: 3 }),
        acceptRequest(),
      ];
    };
    const expected = ['accepted', 'duplicate', 'ignored', 'accepted', 'backpressure', 'rate_limited', 'accepted'];

    it('are decided by one script call, each answer the one a call of its own gives', async () => {
      const [grouped, sequential] = [(await redis.gateways('grouped', 1))[0]!, (await redis.gateways('sequential', 1))[0]!];
      const requests = turn();
      await grouped.accept(acceptRequest());
      let answers: AcceptOutcome[] = [];
      expect(await commandsSent(grouped, async () => (answers = await Promise.all(requests.map((r) => grouped.accept(r)))))).toEqual(['evalsha']);
      expect(answers.map((a) => a.outcome)).toEqual(expected);

      await sequential.accept(acceptRequest());
      const oneByOne: AcceptOutcome[] = [];
      for (const request of requests) oneByOne.push(await sequential.accept(request));
      expect(oneByOne.map((a) => a.outcome)).toEqual(expected);
      expect(await grouped.jobs.pendingCount()).toBe(await sequential.jobs.pendingCount());
      const accepted = answers.filter((a): a is Extract<AcceptOutcome, { outcome: 'accepted' }> => a.outcome === 'accepted');
      for (const { jobId } of accepted) expect((await grouped.jobs.get(jobId))?.status).toBe('pending');
    });

    it(`are sent ${MAX_GROUP} to a script call at most`, async () => {
      const [store] = await redis.gateways('big-turn', 1);
      await store.accept(acceptRequest());
      let answers: AcceptOutcome[] = [];
      const requests = Array.from({ length: MAX_GROUP * 2 + 1 }, () => acceptRequest());
      expect(await commandsSent(store, async () => (answers = await Promise.all(requests.map((r) => store.accept(r)))))).toEqual([
        'evalsha',
        'evalsha',
        'evalsha',
      ]);
      expect(answers.every((a) => a.outcome === 'accepted')).toBe(true);
      expect(await store.jobs.pendingCount()).toBe(MAX_GROUP * 2 + 2);
    });

    it('fail together when the script call fails, remembering none of them', async () => {
      const [dying, survivor] = await redis.gateways('group-lost', 2);
      await dying.accept(acceptRequest());
      const requests = [acceptRequest(), acceptRequest(), acceptRequest({ job: undefined })];
      const answers = requests.map((r) =>
        dying.accept(r).then(
          () => 'answered',
          (err: Error) => err.message,
        ),
      );
      connectionOf(dying).disconnect();
      expect(await Promise.all(answers)).toEqual(requests.map(() => 'Connection is closed.'));
      for (const request of requests) expect(await connectionOf(survivor).exists(claimKey(request))).toBe(0);
      expect(await survivor.jobs.pendingCount()).toBe(1);
    });

    it('fail one by one with Redis’s reason when Redis refuses each inside the script, remembering none', async () => {
      const [store] = await redis.gateways('group-refused', 1);
      await store.accept(acceptRequest()); // bullmq's one-time write of its version in the queue's meta hash
      const requests = [acceptRequest(), acceptRequest(), acceptRequest()];
      await connectionOf(store).set(`${redis.prefix()}:jobs:meta`, 'not a hash');
      let answers: string[] = [];
      const sent = await commandsSent(store, async () => {
        answers = await Promise.all(
          requests.map((r) =>
            store.accept(r).then(
              () => 'answered',
              (err: Error) => err.message,
            ),
          ),
        );
      });
      expect(sent).toEqual(['evalsha']);
      for (const answer of answers) expect(answer).toMatch(/^Redis refused to store the event: .*WRONGTYPE/);
      for (const request of requests) expect(await connectionOf(store).exists(claimKey(request))).toBe(0);
      await connectionOf(store).del(`${redis.prefix()}:jobs:meta`);
      expect((await Promise.all(requests.map((r) => store.accept(r)))).map((a) => a.outcome)).toEqual(['accepted', 'accepted', 'accepted']);
    });
  });

  it('leaves the claim and the job together when a gateway dies right after sending its accept', async () => {
    const [dying, survivor] = await redis.gateways('died', 2);
    const request = acceptRequest();
    void dying.accept(request).catch(() => undefined);
    // The turn's accepts go out in the next check phase: let that one leave, then die.
    await new Promise((resolve) => setImmediate(resolve));
    connectionOf(dying).disconnect();
    await sleep(100);
    const claimed = (await connectionOf(survivor).get(claimKey(request))) !== null;
    const job = await survivor.jobs.findByDeliveryId(request.deliveryId);
    expect(Boolean(job)).toBe(claimed);
    // Either way the sender's retry is right: a duplicate of the stored job, or accepted now.
    expect((await survivor.accept(request)).outcome).toBe(claimed ? 'duplicate' : 'accepted');
    expect(await survivor.jobs.pendingCount()).toBe(1);
  });

  it('runs one of many concurrent accepts of one id sent to two gateways', async () => {
    const [a, b] = await redis.gateways('race', 2);
    const request = acceptRequest();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).accept(request)));
    expect(answers.filter((r) => r.outcome === 'accepted')).toHaveLength(1);
    expect(answers.filter((r) => r.outcome === 'duplicate')).toHaveLength(19);
    expect(await a.jobs.pendingCount()).toBe(1);
  });

  it('holds max_pending across two gateways, counting delayed and running jobs', async () => {
    const [a, b] = await redis.gateways('pending', 2);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).accept(acceptRequest({ maxPending: 4 }))));
    expect(answers.filter((r) => r.outcome === 'accepted')).toHaveLength(4);
    expect(answers.filter((r) => r.outcome === 'backpressure')).toHaveLength(6);
    const running = (await a.jobs.lease('gateway-a', 30_000))!;
    const delayed = (await a.jobs.lease('gateway-a', 30_000))!;
    await a.jobs.fail(delayed.id, { at: Date.now(), step: 'agent', attempt: 1, message: 'later', retryable: true }, Date.now() + 60_000);
    expect((await b.accept(acceptRequest({ maxPending: 4 }))).outcome).toBe('backpressure');
    await a.jobs.complete(running.id, {});
    expect((await b.accept(acceptRequest({ maxPending: 4 }))).outcome).toBe('accepted');
  });

  it('remembers an ignored event’s id for the full hour, without a job', async () => {
    const [store] = await redis.gateways('ignored', 1);
    const request = acceptRequest({ job: undefined });
    expect(await store.accept(request)).toEqual({ outcome: 'ignored' });
    expect(await connectionOf(store).get(claimKey(request))).toBe('ignored');
    expect(await connectionOf(store).pttl(claimKey(request))).toBeGreaterThan(DELIVERY_ID_TTL_MS - 60_000);
    expect(await store.accept(acceptRequest({ deliveryId: request.deliveryId }))).toEqual({ outcome: 'duplicate' });
    expect(await store.jobs.pendingCount()).toBe(0);
  });

  describe('claims left pending by gateways of older versions (claim, then store the job, then settle)', () => {
    const pendingClaim = async (store: RedisStore, request: AcceptRequest, ageMs: number, jobId: string): Promise<void> => {
      const [seconds, micros] = (await connectionOf(store).time()) as [number | string, number | string];
      const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      await connectionOf(store).set(claimKey(request), `pending:${now - ageMs}:${jobId}`, 'PX', DELIVERY_ID_TTL_MS);
    };

    it('waits for a young one and then refuses (retry later), never answering duplicate', async () => {
      const [store] = await redis.gateways('legacy-young', 1, { pendingClaimMs: 30_000, claimWaitMs: 200 });
      const request = acceptRequest();
      await pendingClaim(store, request, 0, 'not-stored');
      await expect(store.accept(request)).rejects.toThrow(/still being accepted by another request/);
      expect(await store.jobs.pendingCount()).toBe(0);
    });

    it('takes over one older than pendingClaimMs without a job, and answers duplicate for one whose job exists', async () => {
      const [store] = await redis.gateways('legacy-old', 1, { pendingClaimMs: 1000, claimWaitMs: 200 });
      const orphan = acceptRequest();
      await pendingClaim(store, orphan, 5000, 'never-stored');
      const taken = await store.accept(orphan);
      expect(taken.outcome).toBe('accepted');
      expect(await connectionOf(store).get(claimKey(orphan))).toBe(`job:${(taken as { jobId: string }).jobId}`);

      const stored = await store.jobs.enqueue(jobInput());
      const settled = acceptRequest({ deliveryId: stored.deliveryId });
      await pendingClaim(store, settled, 0, stored.id);
      expect(await store.accept(settled)).toEqual({ outcome: 'duplicate' });
      expect(await connectionOf(store).get(claimKey(settled))).toBe(`job:${stored.id}`);
    });
  });
});
