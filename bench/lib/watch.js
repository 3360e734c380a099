// What a load run measures on the server process: its CPU time, peak RSS, the load generator's own CPU, and the
// share of the machine's CPU time the hypervisor stole meanwhile.
'use strict';
const { cpuTimes, stealBetween } = require('./steal');

/** Starts watching `server` (may be undefined); `stop(answered, seconds)` returns the measurements. */
function watchServer(server) {
  const peakResettable = server?.resetPeak() ?? false;
  let sampledPeak = 0;
  const sampler = server
    ? setInterval(() => {
        sampledPeak = Math.max(sampledPeak, server.memory().rss);
      }, 100)
    : undefined;
  const cpuBefore = server?.cpuSeconds() ?? NaN;
  // Processes that work for the server (its redis-server): their CPU is reported apart, never added to the server's.
  const companions = server?.companions ?? [];
  const companionsBefore = companions.map((c) => c.cpuSeconds());
  const clientBefore = process.cpuUsage();
  const machineBefore = cpuTimes();
  return {
    stop(answered, seconds) {
      if (sampler) clearInterval(sampler);
      const cpu = (server?.cpuSeconds() ?? NaN) - cpuBefore;
      const companionCpu = companions.reduce((sum, c, i) => sum + c.cpuSeconds() - companionsBefore[i], 0);
      const client = process.cpuUsage(clientBefore);
      const memory = server?.memory() ?? { rss: 0, hwm: 0 };
      return {
        // CPU time the server spent per answered request: less sensitive to a busy machine than req/s.
        cpuUsPerRequest: answered ? (cpu * 1e6) / answered : NaN,
        serverCpuPercent: (cpu / seconds) * 100,
        companionCpuUsPerRequest: companions.length && answered ? (companionCpu * 1e6) / answered : NaN,
        clientCpuPercent: ((client.user + client.system) / 1e6 / seconds) * 100,
        stealPercent: stealBetween(machineBefore, cpuTimes()),
        peakRss: Math.max(peakResettable ? memory.hwm : 0, sampledPeak, memory.rss),
      };
    },
  };
}

module.exports = { watchServer };
