// Traces of jobs that end without a delivery (silent, skipped by a budget) and of a fan-out, recorded by the
// OpenTelemetry SDK's in-memory exporter from a real gateway: every span of a job stays in its receipt's trace.
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { TestGateway } from '@hookwise/testing';
import { recordSpans } from './recorded-spans';
import { awayFromHourEnd, isDone, send, startWorkerGateway, until } from './worker-gateway';

const recorded = recordSpans();

let gw: TestGateway | undefined;
beforeEach(() => awayFromHourEnd(), 30_000);
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

function oneTrace(spans: ReadableSpan[]): void {
  expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
}

describe('traces of jobs that end without a delivery', () => {
  it('a silent job: receipt, agent run and a completion span saying silent, in one trace', async () => {
    gw = await startWorkerGateway('memory', { review: {} }, { tracing: { enabled: true } });
    await send(gw, 'review', 'quiet-1', { answer: '[SILENT]' });
    await until(gw, 'quiet-1', isDone);
    const spans = recorded.of('quiet-1');
    expect(spans.map((s) => s.name).sort()).toEqual(['hookwise.agent', 'hookwise.complete', 'hookwise.receive']);
    oneTrace(spans);
    expect(spans.find((s) => s.name === 'hookwise.complete')?.attributes).toMatchObject({
      'hookwise.route': 'review',
      'hookwise.outcome': 'silent',
      'hookwise.note': 'the agent answered [SILENT]: nothing delivered',
    });
  });

  it('a job a budget skips: receipt, a budget span and a completion span saying skipped, no agent run', async () => {
    gw = await startWorkerGateway('memory', { review: { budget: { runs_per_hour: 1, when_exceeded: 'skip' } } }, { tracing: { enabled: true } });
    await send(gw, 'review', 'first-1', { answer: 'ok' });
    await until(gw, 'first-1', isDone);
    await send(gw, 'review', 'over-1', { answer: 'ok' });
    await until(gw, 'over-1', isDone);
    const spans = recorded.of('over-1');
    expect(spans.map((s) => s.name).sort()).toEqual(['hookwise.budget', 'hookwise.complete', 'hookwise.receive']);
    oneTrace(spans);
    expect(spans.find((s) => s.name === 'hookwise.budget')?.attributes).toMatchObject({
      'hookwise.budget': 'runs_per_hour',
      'hookwise.budget.scope': 'route',
      'hookwise.budget.limit': 1,
      'hookwise.outcome': 'skip',
    });
  });

  it('a fan-out: every destination’s delivery span is in the receipt’s trace', async () => {
    gw = await startWorkerGateway('memory', { review: { deliver: ['recording', 'log'] } }, { tracing: { enabled: true } });
    await send(gw, 'review', 'fan-1', { answer: 'to both' });
    await until(gw, 'fan-1', isDone);
    const spans = recorded.of('fan-1');
    expect(spans.filter((s) => s.name === 'hookwise.deliver').map((s) => s.attributes['hookwise.destination'])).toEqual(['recording', 'log']);
    oneTrace(spans);
  });
});
