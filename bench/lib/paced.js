// An open-loop load generator at a fixed rate: requests leave on a schedule (evenly spaced), whether or not
// earlier answers have come back, and each latency is measured from the request's scheduled time. That is
// what "p99 at 2,000 req/s" means. autocannon's rate option sends each connection's quota for a second as
// fast as it can at the start of that second, so its latency at a "fixed rate" measures bursts. Requests go
// out through raw-client.js, which costs the shared CPU far less than node:http's client.
'use strict';
const { performance } = require('node:perf_hooks');
const { signedRequest } = require('./payload');
const { deliveryId } = require('./load');
const { watchServer } = require('./watch');
const { RawConnection, requestWriter } = require('./raw-client');

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * options: url, bytes, rate (req/s), duration (s), connections (most sockets open at once, default 64),
 * server (to sample memory and CPU), idPrefix. Returns the fields `drive` returns (latencies in ms), plus
 * `lateP99`: how late the generator itself sent (a busy generator shows up here, not as server latency).
 */
async function drivePaced(options) {
  const { body, headers } = signedRequest(options.bytes ?? 1024);
  const target = new URL(options.url);
  const write = requestWriter(options.url, headers, body);
  const maxConnections = options.connections ?? 64;
  const total = Math.round(options.rate * options.duration);
  const interval = 1000 / options.rate;
  const latencies = [];
  const late = [];
  const pool = [];
  const waiting = []; // scheduled times of requests with no free connection yet
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let sent = 0;
  let done = 0;
  const watch = watchServer(options.server);
  const start = performance.now();

  const idleConnection = () => {
    for (let i = pool.length - 1; i >= 0; i -= 1) {
      if (pool[i].closed) pool.splice(i, 1);
      else if (!pool[i].busy) return pool[i];
    }
    if (pool.length >= maxConnections) return undefined;
    const connection = new RawConnection(target.hostname, Number(target.port));
    pool.push(connection);
    return connection;
  };

  const send = (connection, scheduled) => {
    late.push(performance.now() - scheduled);
    connection.send(write({ 'X-GitHub-Delivery': deliveryId(options.idPrefix) }), (err, status) => {
      latencies.push(performance.now() - scheduled);
      if (err) errors += 1;
      else if (status >= 200 && status < 300) ok += 1;
      else non2xx += 1;
      done += 1;
      const next = waiting.shift();
      if (next !== undefined) {
        const free = connection.closed ? idleConnection() : connection;
        if (free) send(free, next);
        else waiting.unshift(next);
      }
    });
  };

  await new Promise((resolve) => {
    const tick = setInterval(() => {
      const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
      while (sent < due) {
        const scheduled = start + sent * interval;
        const connection = waiting.length === 0 ? idleConnection() : undefined;
        if (connection) send(connection, scheduled);
        else waiting.push(scheduled);
        sent += 1;
      }
      if (sent >= total) {
        clearInterval(tick);
        resolve();
      }
    }, 1);
  });
  // Wait for the last answers; what has not come back after 10 s counts as timed out.
  const until = performance.now() + 10_000;
  while (done < total && performance.now() < until) await new Promise((r) => setTimeout(r, 10));
  const elapsed = (performance.now() - start) / 1000;
  for (const connection of pool) connection.destroy();
  const measured = watch.stop(ok, elapsed);
  latencies.sort((a, b) => a - b);
  late.sort((a, b) => a - b);
  return {
    rps: ok / options.duration,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? NaN,
    lateP99: percentile(late, 99),
    total: sent,
    non2xx,
    errors,
    timeouts: total - done,
    ...measured,
  };
}

module.exports = { drivePaced };
