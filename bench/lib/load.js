// Drives one server with autocannon: signed code-host-A POSTs, every request a new delivery id, bounded in time.
'use strict';
const autocannon = require('autocannon');
const { randomUUID } = require('node:crypto');
const { performance } = require('node:perf_hooks');
const { signedRequest } = require('./payload');
const { watchServer } = require('./watch');

let sequence = 0;

/** `b<send time in epoch ms, 2 decimals>-<n>`: unique, and tells the bench sink when the request was sent. */
function deliveryId(prefix = 'b') {
  sequence += 1;
  return `${prefix}${(performance.timeOrigin + performance.now()).toFixed(2)}-${sequence}`;
}

/**
 * options: url, bytes, duration (s), connections, overallRate (req/s, optional), server (to sample memory),
 * idPrefix ('b' by default: the bench sink times ids of that shape), randomIds (UUIDs, as code hosts send them;
 * the sink cannot time those).
 * Returns { rps, accepted, p50, p99, max, total, non2xx, errors, timeouts, cpuUsPerRequest, serverCpuPercent, clientCpuPercent, peakRss }.
 */
async function drive(options) {
  const { body, headers } = signedRequest(options.bytes);
  const watch = watchServer(options.server);
  const result = await autocannon({
    url: options.url,
    method: 'POST',
    connections: options.connections ?? 50,
    duration: options.duration ?? 5,
    timeout: 10,
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    requests: [
      {
        method: 'POST',
        body,
        headers,
        setupRequest(request) {
          request.headers = { ...headers, 'x-github-delivery': options.randomIds ? randomUUID() : deliveryId(options.idPrefix) };
          return request;
        },
      },
    ],
  });
  const accepted = result['2xx'];
  const seconds = result.duration || options.duration;
  return {
    // Only answered 2xx requests count as throughput: a server that fails fast must not look fast.
    rps: accepted / (seconds || 1),
    accepted,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    ...watch.stop(accepted, seconds),
  };
}

module.exports = { drive, deliveryId };
