// An open-loop load generator at a fixed rate: requests leave on a schedule (evenly spaced), whether or not
// earlier answers have come back, and each latency is measured from the request's scheduled time. That is
// what "p99 at 2,000 req/s" means. autocannon's rate option sends each connection's quota for a second as
// fast as it can at the start of that second, so its latency at a "fixed rate" measures bursts.
'use strict';
const http = require('node:http');
const { performance } = require('node:perf_hooks');
const { signedRequest } = require('./payload');
const { deliveryId } = require('./load');
const { watchServer } = require('./watch');

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * options: url, bytes, rate (req/s), duration (s), connections (most sockets open at once, default 64),
 * server (to sample memory and CPU), idPrefix. Returns the fields `drive` returns (latencies in ms).
 */
async function drivePaced(options) {
  const { body, headers } = signedRequest(options.bytes ?? 1024);
  const target = new URL(options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections ?? 64 });
  const total = Math.round(options.rate * options.duration);
  const interval = 1000 / options.rate;
  const latencies = [];
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let timeouts = 0;
  let sent = 0;
  let done = 0;
  const watch = watchServer(options.server);
  const start = performance.now();

  const send = (scheduled) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': body.length, 'x-codehosta-delivery': deliveryId(options.idPrefix) },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - scheduled);
          if (res.statusCode >= 200 && res.statusCode < 300) ok += 1;
          else non2xx += 1;
          done += 1;
        });
      },
    );
    // Without this, a request written in two segments waits for the server's delayed ACK (40 ms on Linux).
    req.on('socket', (socket) => socket.setNoDelay(true));
    req.setTimeout(10_000, () => {
      timeouts += 1;
      req.destroy(new Error('timeout'));
    });
    req.on('error', () => {
      errors += 1;
      done += 1;
    });
    req.end(body);
  };

  await new Promise((resolve) => {
    const tick = setInterval(() => {
      const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
      while (sent < due) {
        send(start + sent * interval);
        sent += 1;
      }
      if (sent >= total) {
        clearInterval(tick);
        resolve();
      }
    }, 1);
  });
  // Wait for the last answers (bounded by the request timeout).
  const until = performance.now() + 11_000;
  while (done < total && performance.now() < until) await new Promise((r) => setTimeout(r, 10));
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  const measured = watch.stop(ok, elapsed);
  latencies.sort((a, b) => a - b);
  return {
    rps: ok / options.duration,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? NaN,
    total: sent,
    non2xx,
    errors,
    timeouts,
    ...measured,
  };
}

module.exports = { drivePaced };
