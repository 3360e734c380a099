// hookwise-store-jsonfile: an example third-party store that keeps delivery ids, rate windows and jobs in one
// JSON file, rewritten (atomically) after every change. Plain CommonJS, @hookwise/core as a peer dependency.
// Meant to show the Store contract in one file, not for load: every change rewrites the whole file.
'use strict';
const { randomUUID } = require('node:crypto');
const { EventEmitter } = require('node:events');
const { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { dirname, isAbsolute, resolve } = require('node:path');
const { DELIVERY_ID_TTL_MS, HookwiseError, RATE_WINDOW_MS, definePlugin } = require('@hookwise/core');

// Callers get copies, never the stored objects: the file is the store, not what a caller later changes.
const clone = (value) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

/** Opens (or creates) the store file. Several stores must not share one file: the last writer wins. */
function openJsonFileStore(file) {
  /** @type {{ ids: Record<string, number>, windows: Record<string, { start: number, count: number }>, jobs: any[] }} */
  let state = { ids: {}, windows: {}, jobs: [] };
  if (existsSync(file)) {
    try {
      state = JSON.parse(readFileSync(file, 'utf8'));
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
  const idKey = (route, deliveryId) => `${route}\u0000${deliveryId}`;

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
        const key = idKey(route, deliveryId);
        if ((state.ids[key] ?? 0) > now) return false;
        state.ids[key] = now + DELIVERY_ID_TTL_MS;
        changed();
        return true;
      },
      async release(route, deliveryId) {
        delete state.ids[idKey(route, deliveryId)];
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
        const created = {
          ...clone(input),
          id: randomUUID(),
          status: 'pending',
          attempts: 0,
          step: 'agent',
          errors: [],
          runAt: now,
          createdAt: now,
          updatedAt: now,
        };
        state.jobs.push(created);
        changed(true);
        return clone(created);
      },
      async lease(owner, leaseMs) {
        const now = Date.now();
        const due = state.jobs.find((j) => (j.status === 'pending' && j.runAt <= now) || (j.status === 'running' && j.leaseUntil < now));
        if (!due) return undefined;
        Object.assign(due, { status: 'running', owner, leaseUntil: now + leaseMs, attempts: due.attempts + 1, updatedAt: now });
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
      async saveAnswer(jobId, prompt, text) {
        Object.assign(job(jobId), { prompt, answer: text, step: 'deliver', attempts: 1, updatedAt: Date.now() });
        changed();
      },
      // Each destination's delivery state of a fan-out route, written after every attempt.
      async saveDestinations(jobId, destinations) {
        Object.assign(job(jobId), { destinations: clone(destinations), updatedAt: Date.now() });
        changed();
      },
      async complete(jobId, receipt) {
        const now = Date.now();
        Object.assign(job(jobId), { status: 'done', receipt: clone(receipt), owner: undefined, finishedAt: now, updatedAt: now });
        changed();
      },
      async fail(jobId, error, retryAt) {
        const j = job(jobId);
        const now = Date.now();
        j.errors.push(clone(error));
        if (retryAt === null) Object.assign(j, { status: 'dead', owner: undefined, finishedAt: now, updatedAt: now });
        else Object.assign(j, { status: 'pending', owner: undefined, runAt: retryAt, updatedAt: now });
        changed(retryAt !== null);
      },
      async release(jobId) {
        const j = job(jobId);
        if (!j || j.status !== 'running') return;
        Object.assign(j, { status: 'pending', owner: undefined, attempts: j.attempts - 1, runAt: Date.now(), updatedAt: Date.now() });
        changed(true);
      },
      async retryDead(jobId) {
        const j = job(jobId);
        if (!j || j.status !== 'dead') return false;
        Object.assign(j, { status: 'pending', attempts: 0, runAt: Date.now(), finishedAt: undefined, updatedAt: Date.now() });
        changed(true);
        return true;
      },
      async pendingCount() {
        return state.jobs.filter((j) => j.status === 'pending' || j.status === 'running').length;
      },
      async get(id) {
        return clone(job(id));
      },
      async findByDeliveryId(deliveryId) {
        return clone(state.jobs.find((j) => j.deliveryId === deliveryId));
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
      description: 'Delivery ids, rate windows and jobs in one JSON file (an example store).',
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
