// Preloaded (node --require) into a server under test: event-loop delay and memory, reported on demand.
// On SIGUSR2 it writes {seq, eld: {p50, p99, max, mean} in ms, rss} to $BENCH_PROBE_FILE and starts a new window.
// The histogram samples every RESOLUTION_MS and records the time between two samples, so an idle loop reads
// RESOLUTION_MS (with resolution 10, an idle process shows p50 ≈ 10 ms); the delay reported is that interval
// minus RESOLUTION_MS: how late the loop came back, which is what "event-loop delay" means.
'use strict';
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { writeFileSync, renameSync } = require('node:fs');

const file = process.env.BENCH_PROBE_FILE;
if (file) {
  const RESOLUTION_MS = 1;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let seq = 0;
  const ms = (ns) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 100) / 100);
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
