// Traces of real webhooks through a real gateway, recorded by the OpenTelemetry SDK's in-memory exporter: one trace
// per event (receipt, agent run, each delivery attempt), continuing the sender's W3C traceparent.
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { derivedJobContext, parseTraceparent } from '@hookwise/gateway';
import type { TestGateway } from '@hookwise/testing';
import { recordSpans } from '../../../gateway/test/integration/recorded-spans';
import { send, settled, startObserved } from './observed-gateway';

const SENDER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SENDER_SPAN = '00f067aa0ba902b7';

const recorded = recordSpans();

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);

describe('traces', () => {
  it("continue the sender's traceparent: receipt, then the agent run and the delivery as its children, in one trace", async () => {
    gw = await startObserved({ tracing: { enabled: true } });
    const answer = await send(
      gw,
      'ci',
      { event_type: 'push', ref: 'main', repository: { name: 'hookwise' } },
      { 'x-request-id': 'traced-1', traceparent: `00-${SENDER_TRACE}-${SENDER_SPAN}-01`, tracestate: 'vendor=abc' },
    );
    expect(answer.status).toBe(202);
    await settled(gw, 1);

    const spans = recorded.of('traced-1');
    const [receive] = named(spans, 'hookwise.receive');
    const [agent] = named(spans, 'hookwise.agent');
    const [deliver] = named(spans, 'hookwise.deliver');
    expect(spans.map((s) => s.name).sort()).toEqual(['hookwise.agent', 'hookwise.deliver', 'hookwise.receive']);
    for (const span of spans) expect(span.spanContext().traceId).toBe(SENDER_TRACE);
    expect(receive.kind).toBe(SpanKind.SERVER);
    expect(receive.parentSpanContext?.spanId).toBe(SENDER_SPAN);
    expect(receive.spanContext().traceState?.get('vendor')).toBe('abc');
    expect(receive.attributes).toMatchObject({
      'hookwise.route': 'ci',
      'hookwise.event': 'push',
      'hookwise.outcome': 'accepted',
      'http.response.status_code': 202,
    });
    expect(agent.parentSpanContext?.spanId).toBe(receive.spanContext().spanId);
    expect(agent.attributes).toMatchObject({
      'hookwise.runner': 'observed',
      'hookwise.outcome': 'ok',
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 5,
    });
    expect(deliver.parentSpanContext?.spanId).toBe(receive.spanContext().spanId);
    expect(deliver.attributes).toMatchObject({ 'hookwise.destination': 'flaky', 'hookwise.outcome': 'delivered', 'hookwise.attempt': 1 });
    // The agent ran before the delivery, and each span lasted as long as its step.
    const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
    expect(ms(agent.endTime)).toBeLessThanOrEqual(ms(deliver.startTime) + 1);
    // An SDK is registered here: no warning that spans go nowhere.
    expect(gw.logText()).not.toContain('no OpenTelemetry SDK');
  });

  it('start a trace of their own without a traceparent, with one span per delivery attempt (the failed one marked as an error)', async () => {
    gw = await startObserved({ tracing: { enabled: true } });
    expect((await send(gw, 'ci', { event_type: 'push', ref: 'dev', repository: { name: 'hookwise' } }, { 'x-request-id': 'fail1-traced' })).status).toBe(202);
    await settled(gw, 1);
    const spans = recorded.of('fail1-traced');
    const [receive] = named(spans, 'hookwise.receive');
    expect(receive.parentSpanContext).toBeUndefined();
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([receive.spanContext().traceId]));
    const deliveries = named(spans, 'hookwise.deliver').sort((a, b) => Number(a.attributes['hookwise.attempt']) - Number(b.attributes['hookwise.attempt']));
    expect(deliveries.map((d) => [d.attributes['hookwise.attempt'], d.attributes['hookwise.outcome'], d.status.code])).toEqual([
      [1, 'retry_scheduled', SpanStatusCode.ERROR],
      [2, 'delivered', SpanStatusCode.UNSET],
    ]);
    expect(deliveries[0].status.message).toMatch(/chat service answered 502/);
    // The agent ran once: the answer was kept for the retry.
    expect(named(spans, 'hookwise.agent')).toHaveLength(1);
  });

  it('record a refused request as an error span with its reason', async () => {
    gw = await startObserved({ tracing: { enabled: true } });
    expect(
      (await gw.post('ci', '{"event_type":"push"}', { 'x-webhook-signature': '00'.repeat(32), traceparent: `00-${SENDER_TRACE}-${SENDER_SPAN}-01` })).status,
    ).toBe(401);
    const refused = recorded.all().filter((s) => s.attributes['hookwise.outcome'] === 'rejected');
    expect(refused).toHaveLength(1);
    expect(refused[0].spanContext().traceId).toBe(SENDER_TRACE);
    expect(refused[0].status).toEqual({ code: SpanStatusCode.ERROR, message: 'invalid_signature' });
    expect(refused[0].attributes).toMatchObject({ 'hookwise.reason': 'invalid_signature', 'hookwise.source': 'generic', 'http.response.status_code': 401 });
  });

  it('put a job that this process did not receive (a restart, another gateway) in the trace derived from its id', async () => {
    gw = await startObserved({ tracing: { enabled: true } });
    const job = await gw.gateway.store.jobs.enqueue({
      route: 'ci',
      event: 'push',
      deliveryId: 'from-before-restart',
      payload: { ref: 'main', repository: { name: 'x' } },
      receivedAt: Date.now(),
    });
    gw.gateway.workers.pump();
    await settled(gw, 1);
    const spans = recorded.of('from-before-restart');
    expect(spans.map((s) => s.name).sort()).toEqual(['hookwise.agent', 'hookwise.deliver']);
    const derived = derivedJobContext(job.id);
    for (const span of spans) {
      expect(span.spanContext().traceId).toBe(derived.traceId);
      expect(span.parentSpanContext?.spanId).toBe(derived.spanId);
    }
  });

  it('are not made while tracing.enabled is off, even with an SDK registered', async () => {
    gw = await startObserved();
    expect((await send(gw, 'ci', { event_type: 'push', ref: 'main', repository: { name: 'hookwise' } }, { 'x-request-id': 'untraced' })).status).toBe(202);
    await settled(gw, 1);
    expect(recorded.all()).toEqual([]);
  });
});

describe('parseTraceparent', () => {
  it('reads a version-00 header and refuses malformed ones (W3C Trace Context)', () => {
    expect(parseTraceparent(`00-${SENDER_TRACE}-${SENDER_SPAN}-01`)).toEqual({ traceId: SENDER_TRACE, spanId: SENDER_SPAN, traceFlags: 1 });
    expect(parseTraceparent(`00-${SENDER_TRACE}-${SENDER_SPAN}-00`)?.traceFlags).toBe(0);
    // A later version may append fields; version 00 may not.
    expect(parseTraceparent(`01-${SENDER_TRACE}-${SENDER_SPAN}-01-more`)?.traceId).toBe(SENDER_TRACE);
    for (const bad of [
      undefined,
      '',
      'garbage',
      `00-${SENDER_TRACE}-${SENDER_SPAN}-01-more`,
      `ff-${SENDER_TRACE}-${SENDER_SPAN}-01`,
      `00-${'0'.repeat(32)}-${SENDER_SPAN}-01`,
      `00-${SENDER_TRACE}-${'0'.repeat(16)}-01`,
      `00-${SENDER_TRACE.slice(1)}-${SENDER_SPAN}-01`,
    ]) {
      expect(parseTraceparent(bad)).toBeUndefined();
    }
  });
});
