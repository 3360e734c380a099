// Per-step profile of one accepted webhook: the real gateway (SQLite store, sleeping agent, log level warn) started
// in this process, then each step of packages/gateway/src/ingest/pipeline.ts called on its own with the gateway's
// own dependencies, N requests per step, 50 in flight where the step awaits the store (so that commits group as
// under load). Prints CPU time (user + system, process.cpuUsage) and heap bytes allocated per call, then the whole
// request (pipeline.handle() and the answer written to a ServerResponse) for comparison. No sockets: the HTTP
// parser and socket writes are the throughput bench's (bench/run.js --only throughput).
//
//   npm run build && node bench/ingest-steps.js [--requests N] [--rounds R] [--ab <gateway dist dir>,...]
//     [--ab-access-log <server dist access-log.js>,...] [--steps-from <gateway dist dir>]
//
// --ab DIR[,DIR...]: also builds a pipeline (and its sources, through that build's plugin registry) from other
// builds of packages/gateway/dist (copied out of the tree with the package's package.json, and node_modules links
// so that their requires resolve) and measures the whole request of each in rotated blocks in this one process,
// so that the machine's load falls on all alike.
'use strict';
const { spawnSync } = require('node:child_process');
const { mkdtempSync, rmSync, writeFileSync, createWriteStream } = require('node:fs');
const { tmpdir, loadavg } = require('node:os');
const path = require('node:path');
const http = require('node:http');
const net = require('node:net');

// A large young generation, so that no scavenge runs inside a measured block and heapUsed deltas are allocations.
if (!globalThis.gc) {
  const r = spawnSync(process.execPath, ['--expose-gc', '--max-semi-space-size=256', process.argv[1], ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1];
};
const N = Number(arg('--requests', 4000));
const ROUNDS = Number(arg('--rounds', 5));
const AB = arg('--ab', undefined)?.split(',');
// --steps-from DIR: the step modules of another build of packages/gateway/dist (the gateway itself, its store
// and its sources stay this build's), for a per-step profile of an earlier build from the same command.
const GATEWAY_DIST = path.resolve(arg('--steps-from', path.dirname(require.resolve('@hookwise/gateway'))));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const gc = () => {
  for (let i = 0; i < 2; i += 1) globalThis.gc();
};

/** Runs `fn(i)` for i in [from, from + n), `inFlight` at a time when it returns promises; CPU µs and heap bytes per call. */
async function measure(n, from, inFlight, fn) {
  gc();
  // The full collection's sweeping goes on in helper threads, whose CPU time process.cpuUsage counts: let it end.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const heap = process.memoryUsage().heapUsed;
  const cpu = process.cpuUsage();
  if (inFlight === 1) {
    for (let i = from; i < from + n; i += 1) fn(i);
  } else {
    let next = from;
    const lane = async () => {
      while (next < from + n) await fn(next++);
    };
    await Promise.all(Array.from({ length: inFlight }, lane));
  }
  const used = process.cpuUsage(cpu);
  const allocated = process.memoryUsage().heapUsed - heap;
  return { us: (used.user + used.system) / n, bytes: allocated / n };
}

/** A ServerResponse with no socket: writeHead and end format the answer into its output buffer, as for a client. */
function detachedResponse() {
  const req = new http.IncomingMessage(new net.Socket());
  req.method = 'POST';
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  return new http.ServerResponse(req);
}

function ingestModules(dist) {
  const m = (name) => require(path.join(dist, 'ingest', name));
  return {
    pipeline: m('pipeline.js'),
    checks: m('request-checks.js'),
    verification: m('verification.js'),
    parse: m('parse-and-handshake.js'),
    accept: m('accept-step.js'),
    storeCall: m('store-call.js'),
    events: m('events.js'),
    filters: m('filters.js'),
    nodeHandler: m('node-handler.js'),
  };
}

async function main() {
  const { startGateway } = require('@hookwise/server');
  const { createLogger } = require('@hookwise/gateway');
  const { signedRequest, SECRET } = require('./lib/payload');
  const home = mkdtempSync(path.join(tmpdir(), 'hookwise-bench-steps-'));
  const total = N * (ROUNDS + 2) * (4 + (AB?.length ?? 0)) + 10_000;
  writeFileSync(
    path.join(home, 'config.yaml'),
    JSON.stringify({
      platforms: {
        webhook: { enabled: true, extra: { host: '127.0.0.1', port: 0, rate_limit: 1e9, routes: { bench: { secret: SECRET, deliver: 'bench_sink' } } } },
      },
      agent: { runner: 'bench_sleep', sleep_ms: 3600000, concurrency: 1, timeout_seconds: 7200 },
      store: { backend: 'sqlite', max_pending: total },
      log: { level: 'warn' },
      plugins: [path.join(__dirname, 'lib', 'bench-plugin.js')],
    }),
  );
  const logger = createLogger({ level: 'warn', stream: createWriteStream('/dev/null') });
  const running = await startGateway({ configDir: home, logger, firstParty: await require('@hookwise/cli').loadFirstPartyPlugins() });
  const load = loadavg().map((x) => x.toFixed(2));
  try {
    const deps = running.gateway.pipeline.deps;
    const { body, headers } = signedRequest(1024);
    const base = { ...headers, 'content-length': String(body.length), host: '127.0.0.1:8080' };
    let seq = 0;
    const request = () => ({
      route: 'bench',
      headers: { ...base, 'x-github-delivery': `s${process.pid}-${seq++}` },
      body,
      url: '/webhooks/bench',
      remoteAddress: '::ffff:127.0.0.1',
    });
    const I = ingestModules(GATEWAY_DIST);
    const route = deps.routes.get('bench');
    const { limits } = deps;
    const candidates = await deps.sourcesFor(route);
    const accept = I.accept.acceptorOf(deps.store);
    const jobRoutes = new I.accept.JobRoutes();
    const T = I.storeCall.STORE_CALL_TIMEOUT_MS;

    // Inputs for each step, made ahead so that a step's numbers are its own.
    const reqs = [];
    const sourceReqs = [];
    const payloads = [];
    const accepts = [];
    const prepare = (n) => {
      reqs.length = sourceReqs.length = payloads.length = accepts.length = 0;
      for (let i = 0; i < n; i += 1) {
        const r = request();
        const s = I.verification.sourceRequestOf(deps.publicUrl, r, body);
        const parsed = I.parse.parseRequest(deps.logger, candidates[0], s);
        const id = r.headers['x-github-delivery'];
        reqs.push(r);
        sourceReqs.push(s);
        payloads.push(parsed);
        accepts.push(I.accept.acceptRequestOf(route, limits, id, 'pull_request', parsed.payload, parsed.json, jobRoutes.of(route)));
      }
    };
    const results = [];
    const steps = {
      'request checks (client, throttle, route, Content-Length)': [
        1,
        (i) => {
          const r = reqs[i];
          const client = I.checks.clientOf(deps.trustedProxies, r);
          I.checks.throttledClient(deps.authThrottle, client);
          deps.routes.get(r.route);
          I.checks.tooLargeByHeader(r.headers, limits.maxBodyBytes);
        },
      ],
      'rate-limit peek (store, with its deadline)': [50, () => I.storeCall.withinDeadline(deps.store.rateLimiter.check(route.name, limits.rateLimit), T)],
      'source choice and request view': [
        1,
        (i) => {
          I.verification.sourceRequestOf(deps.publicUrl, reqs[i], body);
          I.verification.chooseSource(route, candidates, reqs[i].headers);
        },
      ],
      'verification (HMAC-SHA256, constant-time compare)': [1, (i) => I.verification.verifyRequest(deps, route, candidates[0], sourceReqs[i], '127.0.0.1')],
      'parse (JSON.parse) and handshake check': [
        1,
        (i) => {
          const parsed = I.parse.parseRequest(deps.logger, candidates[0], sourceReqs[i]);
          I.parse.handshakeAnswer(deps.logger, route, candidates[0], sourceReqs[i], parsed.payload, SECRET);
        },
      ],
      'delivery id, event type, event filter': [
        1,
        (i) => {
          const event = I.parse.eventTypeOf(candidates, sourceReqs[i], payloads[i].payload);
          I.parse.deliveryIdOf(candidates, sourceReqs[i], payloads[i].payload);
          if (I.events.eventAccepted(route.events, event)) I.filters.routeFilter(route);
        },
      ],
      'accept request (the job and its route)': [
        1,
        (i) => I.accept.acceptRequestOf(route, limits, `x${i}`, 'pull_request', payloads[i].payload, payloads[i].json, jobRoutes.of(route)),
      ],
      'store accept (grouped commit, with its deadline)': [50, (i) => I.storeCall.withinDeadline(accept(accepts[i]), T)],
      'answer (outcome report, 202 body)': [
        1,
        (i) => I.accept.answerOutcome(deps, route, reqs[i], { outcome: 'accepted', jobId: 'j' }, 'd', 'pull_request', 0, undefined),
      ],
      'answer written (sendResult to a ServerResponse)': [
        1,
        () =>
          I.nodeHandler.sendResult(detachedResponse(), {
            status: 202,
            body: { status: 'accepted', route: 'bench', event: 'pull_request', delivery_id: 'b1-1' },
          }),
      ],
      '(a ServerResponse made, not written: subtract from the line above)': [1, () => detachedResponse()],
    };
    const whole = (I2) => async (i) => {
      const result = await I2.pipelineObject.handle(reqs[i]);
      if (result.status !== 202) throw new Error(`answered ${result.status}: ${JSON.stringify(result.body)}`);
      I2.nodeHandler.sendResult(detachedResponse(), result);
    };
    const mine = { ...I, pipelineObject: new I.pipeline.WebhookPipeline(deps) };
    const variants = [[`whole request (${arg('--steps-from', undefined) ? GATEWAY_DIST : 'this build'})`, whole(mine)]];
    for (const dir of AB ?? []) {
      const dist = path.resolve(dir);
      const other = ingestModules(dist);
      // The other build's sources come from its own registry (the wrapper around every plugin method is there).
      const { PluginRegistry } = require(path.join(dist, 'plugins', 'registry.js'));
      const registry = new PluginRegistry([]);
      Object.assign(registry, { entries: running.gateway.registry.entries, aliases: running.gateway.registry.aliases });
      const ctx = running.gateway.createContext();
      const otherSources = [];
      for (const { id } of candidates) {
        const { options } = registry.validateOptions('source', id, {}, id);
        otherSources.push({ id, source: await registry.create('source', id, options, ctx) });
      }
      const otherDeps = { ...deps, sourcesFor: (r) => (r.source === undefined ? otherSources : deps.sourcesFor(r)) };
      variants.push([`whole request (${dir})`, whole({ ...other, pipelineObject: new other.pipeline.WebhookPipeline(otherDeps) })]);
    }
    // Warm-up: every step and variant compiled before anything is counted.
    prepare(N);
    for (const [, [inFlight, fn]] of Object.entries(steps)) await measure(Math.min(N, 2000), 0, inFlight, fn);
    for (const [, fn] of variants) {
      prepare(N);
      await measure(N, 0, 50, fn);
    }
    const rows = {};
    // A pause before each block: the store's background work (grouped commits flushed late, WAL checkpoints)
    // started by one block is not counted in the next step's block.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 250));
    for (let round = 0; round < ROUNDS; round += 1) {
      prepare(N);
      for (const [name, [inFlight, fn]] of Object.entries(steps)) {
        await settle();
        (rows[name] ??= []).push(await measure(N, 0, inFlight, fn));
      }
      // Rotated each round, so that no build always runs first or last.
      const order = variants.map((_, k) => variants[(k + round) % variants.length]);
      for (const [name, fn] of order) {
        prepare(N);
        await settle();
        (rows[name] ??= []).push(await measure(N, 0, 50, fn));
      }
    }
    // Last, because it adds lifecycle listeners to the gateway: the access log at info (the default level; the
    // bench's gateways run at warn, where it is off), one pretty line per request to /dev/null, with the
    // `accepted` event it listens to. The inner listener stands for the pipeline: it reports the request as
    // accepted and finishes the answer.
    // --ab-access-log FILE[,FILE...]: other builds of packages/server/dist/access-log.js, in the same rounds.
    const accessLogs = [['this build', require('@hookwise/server').withAccessLog]];
    for (const file of arg('--ab-access-log', undefined)?.split(',') ?? []) accessLogs.push([file, require(path.resolve(file)).withAccessLog]);
    const reports = require(path.join(GATEWAY_DIST, 'ingest', 'outcome-reports.js'));
    const { Lifecycle } = require(path.join(GATEWAY_DIST, 'observe', 'lifecycle.js'));
    const incoming = () => {
      const res = detachedResponse();
      const req = res.req;
      req.url = '/webhooks/bench';
      req.headers = { ...base };
      return [req, res];
    };
    for (const format of ['pretty', 'json']) {
      // Each access log listens to a lifecycle of its own, so that no variant pays for another's listeners.
      const logs = accessLogs.map(([build, withAccessLog]) => {
        const lifecycle = new Lifecycle();
        // The webhook handler's part as the access log sees it: the decision kept on the response (a build whose
        // access log asks the handler), or the lifecycle event (an earlier build, which listens for it).
        const handler = { recordDecisions: () => undefined, decisionOf: (res) => res.benchDecision };
        const host = { on: (event, fn) => lifecycle.on(event, fn), pipeline: running.gateway.pipeline, handler };
        const inner = (req, res) => {
          const request = { route: 'bench', headers: req.headers, decided: undefined };
          reports.reportAccepted({ logger: deps.logger, lifecycle }, route, request, 'job-1', 'b1-1', 'pull_request', 0);
          res.benchDecision = request.decided;
          res.emit('finish');
        };
        const logger = createLogger({ level: 'info', format, stream: createWriteStream('/dev/null') });
        return [`access log at info, ${format}, ${build} (one line per request; off at warn)`, withAccessLog(inner, host, logger, format)];
      });
      const pairs = [];
      const prepareLog = () => {
        pairs.length = 0;
        for (let i = 0; i < N; i += 1) pairs.push(incoming());
      };
      for (const [, listener] of logs) {
        prepareLog();
        await measure(N, 0, 1, (i) => listener(...pairs[i]));
      }
      for (let round = 0; round < ROUNDS; round += 1) {
        for (let k = 0; k < logs.length; k += 1) {
          const [name, listener] = logs[(k + round) % logs.length];
          prepareLog();
          await settle();
          (rows[name] ??= []).push(await measure(N, 0, 1, (i) => listener(...pairs[i])));
        }
      }
    }
    for (const [name, runs] of Object.entries(rows)) {
      results.push({ step: name, us: median(runs.map((r) => r.us)), bytes: median(runs.map((r) => r.bytes)), runs: runs.map((r) => r.us.toFixed(1)) });
    }
    console.log(
      `ingest steps (${GATEWAY_DIST}): ${N} requests per step, ${ROUNDS} rounds, 1 KB signed body, SQLite store; load average ${load.join(' ')} before, ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')} after`,
    );
    console.log('| step | CPU per call (median) | heap allocated per call | rounds (µs) |');
    console.log('| --- | --- | --- | --- |');
    for (const r of results) console.log(`| ${r.step} | ${r.us.toFixed(2)} µs | ${Math.round(r.bytes)} B | ${r.runs.join(', ')} |`);
  } finally {
    await running.close(1000);
    rmSync(home, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
