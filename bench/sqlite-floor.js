// What a durable SQLite insert costs on this machine, against what the store's `accept` costs (issue 33): CPU time
// of the whole process (every thread, checkpoints included) per event, in rotated rounds of one run. Variants:
//   row       INSERT of a sequence number and the payload: SQLite's cost to keep 1 KB across a crash (WAL, NORMAL)
//   row+id    plus a delivery-id index and its lookup before the insert: the least a deduplicating queue does
//   store     the SQLite store's own `accept` (rate window, duplicate check, backpressure, insert), as the pipeline calls it
// Usage: npm run build && node bench/sqlite-floor.js [--size BYTES] [--group N] [--events N] [--rounds N] [--only row,row+id,store]
'use strict';
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir, loadavg } = require('node:os');
const path = require('node:path');
const Database = require('better-sqlite3');
const { openSqliteStore } = require('@hookwise/store-sqlite');

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const size = arg('--size', 1024);
const group = arg('--group', 30);
const events = arg('--events', 60000);
const rounds = arg('--rounds', 3);
const payloadJson = JSON.stringify({ action: 'opened', pad: 'x'.repeat(Math.max(0, size - 30)) });
const routeDefinitionJson = JSON.stringify({
  source: 'github',
  events: ['pull_request', 'push'],
  prompt: 'PR #{number} "{pull_request.title}"',
  deliver: ['log'],
});
let serial = 0;
const nextId = () => `b${Date.now()}-${(serial += 1)}`;

/** A raw better-sqlite3 table with the store's pragmas; `withId` adds the delivery-id index and lookup. */
function rawVariant(dir, withId) {
  const db = new Database(path.join(dir, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE jobs (seq INTEGER PRIMARY KEY, route TEXT NOT NULL, delivery_id TEXT NOT NULL, payload TEXT NOT NULL, created_at INTEGER NOT NULL)');
  if (withId) db.exec('CREATE INDEX jobs_delivery_id ON jobs (delivery_id)');
  const insert = db.prepare('INSERT INTO jobs (route, delivery_id, payload, created_at) VALUES (?, ?, ?, ?)');
  const lookup = db.prepare('SELECT 1 FROM jobs WHERE delivery_id = ? AND route = ?').pluck();
  const commit = db.transaction((ids) => {
    for (const id of ids) {
      if (withId && lookup.get(id, 'bench') !== undefined) throw new Error('duplicate');
      insert.run('bench', id, payloadJson, Date.now());
    }
  });
  return {
    async batch() {
      const ids = [];
      for (let i = 0; i < group; i += 1) ids.push(nextId());
      commit.immediate(ids);
    },
    close: () => db.close(),
  };
}

/** The store's accept, `group` requests in one turn so that they share a commit, as under load. */
function storeVariant(dir) {
  const store = openSqliteStore({ file: path.join(dir, 'store.db') });
  return {
    async batch() {
      const pending = [];
      for (let i = 0; i < group; i += 1) {
        const deliveryId = nextId();
        const job = { route: 'bench', event: 'push', deliveryId, payload: null, receivedAt: Date.now(), routeDefinition: {} };
        pending.push(store.accept({ route: 'bench', deliveryId, rateLimit: 1e9, maxPending: 1e9, job, hints: { payloadJson, routeDefinitionJson } }));
      }
      for (const outcome of await Promise.all(pending)) if (outcome.outcome !== 'accepted') throw new Error(`not accepted: ${outcome.outcome}`);
    },
    close: () => store.close(),
  };
}

const VARIANTS = {
  row: (dir) => rawVariant(dir, false),
  'row+id': (dir) => rawVariant(dir, true),
  store: (dir) => storeVariant(dir),
};

async function measure(name) {
  const dir = mkdtempSync(path.join(tmpdir(), 'hookwise-sqlite-floor-'));
  const variant = VARIANTS[name](dir);
  try {
    for (let i = 0; i < 10000; i += group) await variant.batch(); // warm-up: JIT, first pages, the checkpoint thread
    const before = process.cpuUsage();
    for (let i = 0; i < events; i += group) await variant.batch();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / (Math.ceil(events / group) * group);
  } finally {
    await variant.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  console.log(
    `SQLite floor: ${size} B payloads, ${group} per commit, ${events} events per run, ${rounds} rounds; load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(', ')}`,
  );
  const only = process.argv.indexOf('--only');
  const names = only === -1 ? Object.keys(VARIANTS) : process.argv[only + 1].split(',').filter((n) => VARIANTS[n]);
  const results = new Map(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r += 1) {
    // Rotated order, so that no variant always runs first (or last) in a round.
    for (let k = 0; k < names.length; k += 1) {
      const name = names[(k + r) % names.length];
      results.get(name).push(await measure(name));
    }
  }
  console.log('\n| variant | CPU per event, rounds | median |\n| --- | --- | --- |');
  for (const [name, values] of results) {
    const sorted = [...values].sort((a, b) => a - b);
    console.log(`| ${name} | ${values.map((v) => `${v.toFixed(1)} µs`).join(', ')} | ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} µs |`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
