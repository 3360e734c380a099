// Store contract cases: the outbox, messages to other systems kept until sent (notify: lifecycle
// webhooks). `Store.outbox` is optional, newer than the contract's other parts, so a store without it passes these
// cases without running them (as with memos).
import assert from 'node:assert/strict';
import type { Outbox } from '@hookwise/core';
import { same, sleep, type ContractKit, type StoreContractCase } from './store-contract-kit';

const LEASE = 60_000;

export function outboxCases({ withStore }: ContractKit): StoreContractCase[] {
  const outboxCase = (name: string, body: (outbox: Outbox) => Promise<void>): StoreContractCase =>
    withStore(`${name} (when the store has an outbox)`, async (store) => {
      if (store.outbox) await body(store.outbox);
    });
  const ids = (messages: Array<{ id: string }>): string[] => messages.map((m) => m.id);
  return [
    outboxCase('outbox: messages come back first added first, with their text, once claimed they are not due again', async (outbox) => {
      same(await outbox.due('t1', 10, LEASE), [], 'an empty outbox has nothing due');
      const body = JSON.stringify({ type: 'hookwise.accepted', data: { note: 'line\nbreak \u00e9\ud83d\ude00' } });
      for (const id of ['m1', 'm2', 'm3']) same(await outbox.add('t1', { id, body: `${body}${id}` }, 100), { dropped: 0 });
      await outbox.add('t2', { id: 'other', body: 'x' }, 100);
      const first = await outbox.due('t1', 2, LEASE);
      same(first, [
        { id: 'm1', body: `${body}m1`, attempts: 0 },
        { id: 'm2', body: `${body}m2`, attempts: 0 },
      ]);
      same(ids(await outbox.due('t1', 10, LEASE)), ['m3'], 'claimed messages are not handed out again');
      same(await outbox.due('t1', 10, LEASE), []);
      same(ids(await outbox.due('t2', 10, LEASE)), ['other'], 'targets are separate');
    }),
    outboxCase('outbox: done removes a message; retryLater makes it due at its time with its attempts', async (outbox) => {
      for (const id of ['a', 'b', 'c']) await outbox.add('t', { id, body: id }, 100);
      const [a, b, c] = await outbox.due('t', 3, LEASE);
      await outbox.done('t', a.id);
      await outbox.retryLater('t', b.id, Date.now() + 300, 1);
      await outbox.retryLater('t', c.id, Date.now(), 0);
      same(await outbox.due('t', 10, LEASE), [{ id: 'c', body: 'c', attempts: 0 }], 'given back now: due at once');
      await sleep(450);
      same(await outbox.due('t', 10, LEASE), [{ id: 'b', body: 'b', attempts: 1 }], 'due after its retry time');
      await outbox.retryLater('t', c.id, Date.now(), 0);
      await outbox.done('t', 'never-added');
      await outbox.retryLater('t', 'never-added', Date.now(), 3);
      await outbox.done('t', 'a');
      same(await outbox.due('t', 10, 0), [{ id: 'c', body: 'c', attempts: 0 }], 'unknown ids change nothing and add nothing');
    }),
    outboxCase('outbox: a claim lasts its lease; then the message is due again', async (outbox) => {
      await outbox.add('t', { id: 'x', body: 'x' }, 100);
      same(ids(await outbox.due('t', 1, 250)), ['x']);
      same(await outbox.due('t', 1, 250), []);
      await sleep(400);
      same(ids(await outbox.due('t', 1, 250)), ['x'], 'its sender died: someone else may send it');
    }),
    outboxCase('outbox: a full target drops its oldest messages and counts them; a failed one keeps its place', async (outbox) => {
      for (const id of ['1', '2', '3']) await outbox.add('t', { id, body: id }, 3);
      await outbox.add('u', { id: 'u1', body: 'u' }, 3);
      const [one] = await outbox.due('t', 1, LEASE);
      await outbox.retryLater('t', one.id, Date.now(), 1);
      same(await outbox.add('t', { id: '4', body: '4' }, 3), { dropped: 1 });
      same(await outbox.add('t', { id: '5', body: '5' }, 2), { dropped: 2 }, 'a smaller bound drops down to it');
      same(ids(await outbox.due('t', 10, LEASE)), ['4', '5']);
      await outbox.retryLater('t', '1', Date.now(), 2);
      same(await outbox.due('t', 10, LEASE), [], 'a dropped message is not brought back');
      same(ids(await outbox.due('u', 10, LEASE)), ['u1'], 'the bound is per target');
    }),
    outboxCase('outbox: concurrent claims hand each message to one caller', async (outbox) => {
      await Promise.all(Array.from({ length: 30 }, (_, i) => outbox.add('t', { id: `c${i}`, body: String(i) }, 100)));
      const claims = await Promise.all(Array.from({ length: 6 }, () => outbox.due('t', 7, LEASE)));
      const claimed = claims.flatMap(ids);
      assert.equal(claimed.length, 30, 'every message is claimed');
      assert.equal(new Set(claimed).size, 30, 'no message is claimed twice');
    }),
  ];
}
