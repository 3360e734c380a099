// Preloaded (node --require) into a server under test: event-loop delay and memory, reported on demand.
// On SIGUSR2 it writes {seq, eld: {p50, p99, max, mean} in ms, rss} to $BENCH_PROBE_FILE and starts a new window.
'use strict';
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { writeFileSync, renameSync } = require('node:fs');

const file = process.env.BENCH_PROBE_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let seq = 0;
  const ms = (ns) => Math.round((ns / 1e6) * 100) / 100;
  process.on('SIGUSR2', () => {
    seq += 1;
    const report = {
      seq,
      eld: { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max), mean: ms(histogram.mean) },
      rss: process.memoryUsage().rss,
    };
    histogram.reset();
    writeFileSync(`${file}.tmp`, JSON.stringify(report));
    renameSync(`${file}.tmp`, file);
  });
}
