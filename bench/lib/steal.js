// CPU time the hypervisor gave to other guests ("steal", from /proc/stat): on a shared VM, the noise a run met.
'use strict';
const { readFileSync } = require('node:fs');

/** The machine's CPU time counters (jiffies): total and stolen. Undefined where /proc/stat cannot be read. */
function cpuTimes() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
    return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
  } catch {
    return undefined;
  }
}

/** Percentage of the machine's CPU time stolen between two readings, or NaN when unknown. */
function stealBetween(before, after) {
  if (!before || !after || after.total <= before.total) return NaN;
  return ((after.steal - before.steal) / (after.total - before.total)) * 100;
}

module.exports = { cpuTimes, stealBetween };
