// GET /metrics after real traffic through a real gateway, read back with a Prometheus text-format parser.
import { RouteLabels } from '@hookwise/gateway';
import type { TestGateway } from '@hookwise/testing';
import { METRICS_TOKEN, send, settled, startObserved } from './observed-gateway';

interface Sample {
  value?: string;
  labels?: Record<string, string>;
}
interface Family {
  name: string;
  help: string;
  type: string;
  metrics: Sample[];
}
const parsePrometheus = require('parse-prometheus-text-format') as (text: string) => Family[];

/**
 * The same text with histograms read as plain series (`<name>_bucket`, `_sum`, `_count`, each with its labels):
 * parse-prometheus-text-format folds a histogram's series into one sample and drops their labels, so a histogram
 * with labels cannot be read through its histogram support.
 */
function parseSeries(text: string): Family[] {
  const byName = new Map<string, Family>();
  // Each label set's series come one after another, so a name recurs: its samples are gathered here.
  for (const f of parsePrometheus(text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped'))) {
    const known = byName.get(f.name);
    if (known) known.metrics.push(...f.metrics);
    else byName.set(f.name, { ...f, metrics: [...f.metrics] });
  }
  return [...byName.values()];
}

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

function family(families: Family[], name: string): Family {
  const found = families.find((f) => f.name === name);
  if (!found) throw new Error(`no metric ${name}; have: ${families.map((f) => f.name).join(', ')}`);
  return found;
}

/** The sample whose labels include `labels` (exactly one must). */
function sample(families: Family[], name: string, labels: Record<string, string>): Sample {
  const matching = family(families, name).metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  if (matching.length !== 1)
    throw new Error(
      `${name}${JSON.stringify(labels)}: ${matching.length} samples; all: ${JSON.stringify(family(families, name).metrics.map((m) => m.labels))}`,
    );
  return matching[0];
}

const value = (families: Family[], name: string, labels: Record<string, string>) => Number(sample(families, name, labels).value);
const count = (series: Family[], name: string, labels: Record<string, string>) => value(series, `${name}_count`, labels);

async function scrape(url: string, token?: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`${url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

describe('GET /metrics', () => {
  it('is not served unless metrics.enabled is set', async () => {
    gw = await startObserved();
    expect((await scrape(gw.url)).status).toBe(404);
  });

  it('counts requests, refusals, agent runs, tokens, deliveries, retries and dead letters of real traffic, and asks for the bearer token', async () => {
    gw = await startObserved({ metrics: { enabled: true, token: METRICS_TOKEN } });
    const push = (id: string) => send(gw!, 'ci', { event_type: 'push', ref: 'main', repository: { name: 'hookwise' } }, { 'x-request-id': id });
    expect((await push('ok-1')).status).toBe(202);
    expect((await push('fail1-retried')).status).toBe(202);
    expect((await push('fail9-dead')).status).toBe(202);
    expect((await push('ok-1')).body).toMatchObject({ status: 'duplicate' });
    expect((await send(gw, 'ci', { event_type: 'star' }, { 'x-request-id': 'star-1' })).body).toMatchObject({ status: 'ignored' });
    expect((await gw.post('ci', '{"event_type":"push"}', { 'x-webhook-signature': '00'.repeat(32) })).status).toBe(401);
    expect((await gw.post('ci', '{"event_type":"push"}')).status).toBe(401);
    expect((await send(gw, 'no-such-route', { event_type: 'push' })).status).toBe(404);
    await settled(gw, 3);

    const refused = await scrape(gw.url);
    expect(refused.status).toBe(401);
    expect((await scrape(gw.url, 'wrong-token-0123456789')).status).toBe(401);
    const { status, type, text } = await scrape(gw.url, METRICS_TOKEN);
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parsePrometheus(text);
    const series = parseSeries(text);

    const requests = 'hookwise_webhook_requests_total';
    expect(family(families, requests).type).toBe('COUNTER');
    expect(value(families, requests, { route: 'ci', status: '202', outcome: 'accepted' })).toBe(3);
    expect(value(families, requests, { route: 'ci', status: '200', outcome: 'duplicate' })).toBe(1);
    expect(value(families, requests, { route: 'ci', status: '200', outcome: 'ignored' })).toBe(1);
    expect(value(families, requests, { route: 'ci', status: '401', outcome: 'rejected' })).toBe(2);
    // A route the sender made up is not a label value of its own.
    expect(value(families, requests, { route: '(unknown)', status: '404', outcome: 'rejected' })).toBe(1);
    expect(family(families, requests).metrics.some((m) => m.labels?.route === 'no-such-route')).toBe(false);
    expect(value(families, 'hookwise_webhook_rejections_total', { route: 'ci', reason: 'invalid_signature' })).toBe(1);
    expect(value(families, 'hookwise_webhook_rejections_total', { route: 'ci', reason: 'missing_signature' })).toBe(1);
    expect(value(families, 'hookwise_webhook_verification_failures_total', { source: 'generic', reason: 'invalid_signature' })).toBe(1);
    expect(value(families, 'hookwise_webhook_verification_failures_total', { source: 'none', reason: 'missing_signature' })).toBe(1);

    const runs = 'hookwise_agent_run_duration_seconds';
    expect(family(families, runs).type).toBe('HISTOGRAM');
    expect(count(series, runs, { route: 'ci', runner: 'observed', outcome: 'ok' })).toBe(3);
    expect(value(families, 'hookwise_agent_tokens_total', { route: 'ci', runner: 'observed', type: 'input' })).toBe(36);
    expect(value(families, 'hookwise_agent_tokens_total', { route: 'ci', runner: 'observed', type: 'output' })).toBe(15);

    const deliveries = 'hookwise_delivery_duration_seconds';
    expect(count(series, deliveries, { destination: 'flaky', outcome: 'delivered' })).toBe(2);
    // fail1: one failed attempt, then delivered; fail9: two failed attempts (max_attempts 2), then a dead letter.
    expect(count(series, deliveries, { destination: 'flaky', outcome: 'failed' })).toBe(3);
    expect(value(series, `${deliveries}_bucket`, { destination: 'flaky', outcome: 'delivered', le: '+Inf' })).toBe(2);
    expect(value(series, `${runs}_sum`, { route: 'ci', runner: 'observed', outcome: 'ok' })).toBeGreaterThan(0);
    expect(value(families, 'hookwise_retries_total', { route: 'ci', step: 'deliver' })).toBe(2);
    expect(value(families, 'hookwise_dead_letters_total', { route: 'ci', step: 'deliver' })).toBe(1);

    expect(family(families, 'hookwise_queue_jobs').type).toBe('GAUGE');
    expect(value(families, 'hookwise_queue_jobs', { state: 'pending' })).toBe(0);
    expect(value(families, 'hookwise_queue_jobs', { state: 'running' })).toBe(0);
    expect(value(families, 'hookwise_queue_jobs', { state: 'dead' })).toBe(1);

    // Process metrics from prom-client's default collector.
    expect(Number(family(families, 'process_cpu_seconds_total').metrics[0].value)).toBeGreaterThan(0);
    expect(Number(family(families, 'process_resident_memory_bytes').metrics[0].value)).toBeGreaterThan(0);
    expect(families.some((f) => f.name === 'nodejs_eventloop_lag_seconds')).toBe(true);

    // Prometheus naming: snake_case, counters end in _total, units in the name, every family has help text.
    for (const f of families.filter((x) => x.name.startsWith('hookwise_'))) {
      expect(f.name).toMatch(/^hookwise_[a-z][a-z0-9_]*$/);
      expect(f.help.length).toBeGreaterThan(10);
      if (f.type === 'COUNTER') expect(f.name).toMatch(/_total$/);
      if (f.type === 'HISTOGRAM') expect(f.name).toMatch(/_seconds$/);
    }
  });

  it('serves /metrics without a token when none is configured', async () => {
    gw = await startObserved({ metrics: { enabled: true } });
    const { status, text } = await scrape(gw.url);
    expect(status).toBe(200);
    expect(parsePrometheus(text).some((f) => f.name === 'hookwise_queue_jobs')).toBe(true);
  });

  it('refuses to start with a metrics token shorter than 16 characters', async () => {
    await expect(startObserved({ metrics: { enabled: true, token: 'short' } })).rejects.toThrow(/metrics\.token is 5 characters long: use at least 16/);
  });
});

describe('RouteLabels', () => {
  it('gives known routes their own label up to the limit, then (other); unknown routes are (unknown)', () => {
    const labels = new RouteLabels(2);
    expect([labels.label('a', true), labels.label('b', true), labels.label('c', true), labels.label('a', true), labels.label('x', false)]).toEqual([
      'a',
      'b',
      '(other)',
      'a',
      '(unknown)',
    ]);
  });
});
