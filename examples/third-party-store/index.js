// hookwise-store-jsonfile: an example third-party store that keeps delivery ids, rate windows, jobs and budget
// counters in one JSON file, rewritten (atomically) after every change. Plain CommonJS, @hookwise/core as a peer
// dependency. Meant to show the Store contract in one file, not for load: every change rewrites the whole file, and
// lookups walk the job list.
'use strict';
const { randomUUID } = require('node:crypto');
const { EventEmitter } = require('node:events');
const { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { dirname, isAbsolute, resolve } = require('node:path');
const { COALESCE_MAX_EVENTS, DELIVERY_ID_TTL_MS, HookwiseError, RATE_WINDOW_MS, definePlugin } = require('@hookwise/core');

// Callers get copies, never the stored objects: the file is the store, not what a caller later changes.
const clone = (value) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

/** Opens (or creates) the store file. Several stores must not share one file: the last writer wins. */
function openJsonFileStore(file) {
  // ids: route + delivery id -> remembered until. windows: the rate windows per route. jobs: in creation order.
  // coalescing: route + coalesce key -> the id of the job that still takes events. counters: the budget windows.
  let state = { ids: {}, windows: {}, jobs: [], coalescing: {}, counters: {} };
  if (existsSync(file)) {
    try {
      // A file written by an older version lacks the newer keys: they start empty.
      state = { ...state, ...JSON.parse(readFileSync(file, 'utf8')) };
    } catch (err) {
      throw new HookwiseError('HW_E_STORE', `${file} is not a jsonfile store (${err.message}): move it away or set store.file`);
    }
  }
  const ready = new EventEmitter();
  let closed = false;
  const save = () => {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(`${file}.tmp`, JSON.stringify(state), { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
  };
  const job = (id) => state.jobs.find((j) => j.id === id);
  const changed = (wake = false) => {
    save();
    if (wake) ready.emit('ready');
  };
  // Route names never hold a NUL, so route + NUL + key names one key of one route.
  const routeKey = (route, key) => `${route}\u0000${key}`;

  const windowOf = (route, now) => {
    const current = state.windows[route];
    if (current && now - current.start < RATE_WINDOW_MS) return current;
    return (state.windows[route] = { start: now, count: 0 });
  };
  const answer = (w, limit, now) => ({ allowed: w.count < limit, retryAfterSeconds: Math.max(1, Math.ceil((w.start + RATE_WINDOW_MS - now) / 1000)) });

  return {
    file,
    deliveryIds: {
      async claim(route, deliveryId) {
        const now = Date.now();
        const key = routeKey(route, deliveryId);
        if ((state.ids[key] ?? 0) > now) return false;
        state.ids[key] = now + DELIVERY_ID_TTL_MS;
        changed();
        return true;
      },
      async release(route, deliveryId) {
        delete state.ids[routeKey(route, deliveryId)];
        changed();
      },
    },
    rateLimiter: {
      async check(route, limit) {
        const now = Date.now();
        return answer(windowOf(route, now), limit, now);
      },
      async hit(route, limit) {
        const now = Date.now();
        const w = windowOf(route, now);
        const result = answer(w, limit, now);
        if (result.allowed) w.count += 1;
        changed();
        return result;
      },
    },
    jobs: {
      async enqueue(input) {
        const now = Date.now();
        // `coalesce` says how to enqueue; the job keeps only its key.
        const { coalesce, ...fields } = clone(input);
        const open = coalesce && job(state.coalescing[routeKey(fields.route, coalesce.key)]);
        if (open) {
          // Coalescing: the event joins the waiting job of its route and key. The job keeps its id, first delivery
          // id and runAt (the window counts from the first event and is never extended); it takes the latest
          // payload and event, and in mode `all` also keeps every payload.
          Object.assign(open, { payload: fields.payload, event: fields.event, updatedAt: now });
          open.coalesced.deliveryIds.push(fields.deliveryId);
          if (open.coalesced.payloads) open.coalesced.payloads.push(fields.payload);
          if (open.coalesced.deliveryIds.length >= COALESCE_MAX_EVENTS) delete state.coalescing[routeKey(open.route, open.coalesceKey)];
          changed();
          return clone(open);
        }
        const created = { ...fields, id: randomUUID(), status: 'pending', attempts: 0, step: 'agent', errors: [], runAt: now, createdAt: now, updatedAt: now };
        if (coalesce) {
          // Due windowMs after its first event.
          Object.assign(created, { coalesceKey: coalesce.key, coalesced: { deliveryIds: [fields.deliveryId] }, runAt: fields.receivedAt + coalesce.windowMs });
          if (coalesce.mode === 'all') created.coalesced.payloads = [fields.payload];
          state.coalescing[routeKey(fields.route, coalesce.key)] = created.id;
        }
        state.jobs.push(created);
        changed(true);
        return clone(created);
      },
      async lease(owner, leaseMs) {
        const now = Date.now();
        const live = (j) => j.status === 'running' && j.leaseUntil >= now;
        // Concurrency keys: one job per route and key runs under a live lease; the others wait their turn.
        const keyBusy = (j) =>
          j.concurrencyKey !== undefined && state.jobs.some((o) => o !== j && live(o) && o.route === j.route && o.concurrencyKey === j.concurrencyKey);
        const due = state.jobs.find((j) => ((j.status === 'pending' && j.runAt <= now) || (j.status === 'running' && !live(j))) && !keyBusy(j));
        if (!due) return undefined;
        // Once leased, a job takes no more events (its run may already have read them), even if it is handed back.
        const slot = routeKey(due.route, due.coalesceKey);
        if (due.coalesceKey !== undefined && state.coalescing[slot] === due.id) delete state.coalescing[slot];
        // A hold's note said why the job waited: it runs now.
        Object.assign(due, { status: 'running', owner, leaseUntil: now + leaseMs, attempts: due.attempts + 1, note: undefined, updatedAt: now });
        changed();
        return clone(due);
      },
      async renew(jobId, owner, leaseMs) {
        const j = job(jobId);
        if (!j || j.status !== 'running' || j.owner !== owner) return false;
        j.leaseUntil = Date.now() + leaseMs;
        changed();
        return true;
      },
      // The delivery step's first attempt runs at once under the same lease, so it counts as attempt 1.
      async saveAnswer(jobId, prompt, text, usage) {
        Object.assign(job(jobId), { prompt, answer: text, usage: clone(usage), step: 'deliver', attempts: 1, updatedAt: Date.now() });
        changed();
      },
      // Each destination's delivery state of a fan-out route, written after every attempt.
      async saveDestinations(jobId, destinations) {
        Object.assign(job(jobId), { destinations: clone(destinations), updatedAt: Date.now() });
        changed();
      },
      // Delivered (no ending), or ended otherwise: `silent` or `skipped`, with a note for people.
      // Every end of a run wakes the workers: a job waiting for this one's concurrency key may run now.
      async complete(jobId, receipt, ending) {
        const now = Date.now();
        const { outcome, note } = ending ?? {};
        Object.assign(job(jobId), { status: 'done', receipt: clone(receipt), outcome, note, owner: undefined, finishedAt: now, updatedAt: now });
        changed(true);
      },
      async fail(jobId, error, retryAt) {
        const j = job(jobId);
        const now = Date.now();
        j.errors.push(clone(error));
        if (retryAt === null) Object.assign(j, { status: 'dead', owner: undefined, finishedAt: now, updatedAt: now });
        else Object.assign(j, { status: 'pending', owner: undefined, runAt: retryAt, updatedAt: now });
        changed(true);
      },
      // Back to pending, attempt not counted: due at once (a shutdown), or held until hold.runAt (a spent budget).
      async release(jobId, hold) {
        const j = job(jobId);
        if (!j || j.status !== 'running') return;
        const now = Date.now();
        Object.assign(j, { status: 'pending', owner: undefined, attempts: j.attempts - 1, runAt: hold?.runAt ?? now, note: hold?.note, updatedAt: now });
        changed(true);
      },
      async retryDead(jobId) {
        const j = job(jobId);
        if (!j || j.status !== 'dead') return false;
        Object.assign(j, { status: 'pending', attempts: 0, runAt: Date.now(), finishedAt: undefined, updatedAt: Date.now() });
        changed(true);
        return true;
      },
      // A waiting job (a hold, a backoff) becomes due now, e.g. once its approval is decided.
      async makeDue(jobId) {
        const j = job(jobId);
        if (!j || j.status !== 'pending') return false;
        const now = Date.now();
        if (j.runAt > now) Object.assign(j, { runAt: now, updatedAt: now });
        changed(true);
        return true;
      },
      async pendingCount() {
        return state.jobs.filter((j) => j.status === 'pending' || j.status === 'running').length;
      },
      async get(id) {
        return clone(job(id));
      },
      // A coalesced job is found by each of the delivery ids merged into it.
      async findByDeliveryId(deliveryId) {
        return clone(state.jobs.find((j) => j.deliveryId === deliveryId || j.coalesced?.deliveryIds.includes(deliveryId)));
      },
      async list(filter = {}) {
        const matching = state.jobs.filter((j) => (!filter.status || j.status === filter.status) && (!filter.route || j.route === filter.route));
        // Newest first; jobs are appended in creation order.
        return matching
          .reverse()
          .slice(0, filter.limit ?? matching.length)
          .map(clone);
      },
      onReady(listener) {
        ready.on('ready', listener);
        return () => ready.off('ready', listener);
      },
    },
    // Budget counters (runs per hour, tokens per day) in the file too, so they survive a restart. A window starts at
    // a multiple of its length since the epoch; a counter keeps only its current window.
    counters: {
      async add(key, amount, windowMs) {
        const now = Date.now();
        const start = now - (now % windowMs);
        // The window length is part of the name: the same key counted per hour and per day are two counters.
        const name = `${windowMs}\u0000${key}`;
        const current = state.counters[name];
        const total = (current?.start === start ? current.total : 0) + amount;
        if (amount === 0) return total; // a peek: nothing to write
        state.counters[name] = { start, total };
        changed();
        return total;
      },
    },
    async close() {
      if (closed) return;
      closed = true;
      ready.removeAllListeners();
      save();
    },
  };
}

module.exports = definePlugin({
  package: require('./package.json'),
  contributes: [
    {
      kind: 'store',
      id: 'jsonfile',
      description: 'Delivery ids, rate windows, jobs and budget counters in one JSON file (an example store).',
      // Only this store's own keys of `store:`; the gateway checks backend, max_pending and lease_seconds.
      optionsSchema: {
        type: 'object',
        additionalProperties: false,
        properties: { file: { type: 'string', default: 'hookwise-store.json', description: 'The JSON file, relative to the config dir.' } },
      },
      create(options, ctx) {
        const file = isAbsolute(options.file) ? options.file : resolve(ctx.configDir, options.file);
        ctx.logger.info(`jsonfile store at ${file}`);
        return openJsonFileStore(file);
      },
    },
  ],
});
module.exports.openJsonFileStore = openJsonFileStore;
