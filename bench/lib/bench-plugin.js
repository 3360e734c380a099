// A plugin loaded only by the bench: the `bench_sink` deliverer, a null deliverer that records receipt-to-delivery
// time (the bench puts the send time into the delivery id: `b<epoch-ms with decimals>-<n>`), and the `bench_sleep`
// agent, which answers after `sleep_ms` without using the CPU, and the `bench_discard` store (the memory store, except that
// `accept` answers "accepted" and keeps nothing: what the gateway costs outside its store, issue 33). On SIGUSR2 the sink writes its totals since the start
// to $BENCH_SINK_FILE (ids of other shapes, e.g. warm-up traffic, are delivered but not timed).
'use strict';
const { writeFileSync, renameSync } = require('node:fs');
const { setImmediate } = require('node:timers');
const { createHistogram, performance } = require('node:perf_hooks');
const { definePlugin } = require('@hookwise/core');
const { createMemoryStore } = require('@hookwise/gateway');

const file = process.env.BENCH_SINK_FILE;
let delivered = 0;
const latencyUs = createHistogram();

function nowMs() {
  return performance.timeOrigin + performance.now();
}

if (file) {
  process.on('SIGUSR2', () => {
    const ms = (us) => Math.round(us / 10) / 100;
    const report = {
      delivered,
      timed: latencyUs.count,
      p50: ms(latencyUs.count ? latencyUs.percentile(50) : 0),
      p99: ms(latencyUs.count ? latencyUs.percentile(99) : 0),
      max: ms(latencyUs.count ? latencyUs.max : 0),
      mean: ms(latencyUs.count ? latencyUs.mean : 0),
    };
    writeFileSync(`${file}.tmp`, JSON.stringify(report));
    renameSync(`${file}.tmp`, file);
  });
}

module.exports = definePlugin({
  meta: { name: 'hookwise-bench-plugin', version: '0.0.0', api: 2 },
  contributes: [
    {
      kind: 'deliverer',
      id: 'bench_sink',
      description: 'Discards the answer; records receipt-to-delivery time for the bench.',
      optionsSchema: { type: 'object' },
      create() {
        return {
          async deliver(msg) {
            delivered += 1;
            const match = /^b(\d+(?:\.\d+)?)-/.exec(msg.deliveryId);
            if (match) latencyUs.record(Math.max(1, Math.round((nowMs() - Number(match[1])) * 1000)));
            return { target: 'bench_sink' };
          },
        };
      },
    },
    {
      kind: 'store',
      id: 'bench_discard',
      description: 'Answers every accept with "accepted" and keeps nothing: the ingest path without a store (bench only).',
      optionsSchema: { type: 'object' },
      create() {
        const store = createMemoryStore();
        let n = 0;
        // Resolved in a later turn, like a store that groups its commits, so the request takes the same path.
        store.accept = () => new Promise((resolve) => setImmediate(() => resolve({ outcome: 'accepted', jobId: `discarded-${(n += 1)}` })));
        return store;
      },
    },
    {
      kind: 'agent',
      id: 'bench_sleep',
      description: 'Answers after sleep_ms, like a slow model call.',
      optionsSchema: { type: 'object', properties: { sleep_ms: { type: 'integer', default: 2000 } } },
      create(options) {
        return {
          run(task, { signal }) {
            return new Promise((resolve, reject) => {
              const timer = setTimeout(() => resolve({ text: 'ok' }), options.sleep_ms);
              signal?.addEventListener(
                'abort',
                () => {
                  clearTimeout(timer);
                  reject(new Error('aborted'));
                },
                { once: true },
              );
            });
          },
        };
      },
    },
  ],
});
