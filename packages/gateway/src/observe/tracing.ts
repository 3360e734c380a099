// OpenTelemetry spans of a gateway, made from its lifecycle events through @opentelemetry/api: one trace per event,
// from receipt through each agent run and each delivery attempt, continuing the sender's W3C traceparent. Spans go
// wherever the SDK registered in the process sends them; without one, the API makes nothing.
import { createHash } from 'node:crypto';
import type { Attributes, Context, SpanContext, Tracer } from '@opentelemetry/api';
import type { HeaderMap } from '@hookwise/core';
import { headerValue } from '@hookwise/core';
import type { ObservedGateway } from './observed-gateway';
import type { LifecycleEventName, LifecycleListener } from './lifecycle';

export interface GatewayTracing {
  close(): void;
}

export interface GatewayTracingOptions {
  /** Jobs whose receipt span is remembered for their agent and delivery spans (oldest forgotten first). */
  maxJobs?: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The span context a W3C `traceparent` header names (https://www.w3.org/TR/trace-context/), or undefined when it
 * is absent or malformed: version ff, all-zero ids, and data after a version-00 header are refused.
 */
export function parseTraceparent(value: string | undefined): { traceId: string; spanId: string; traceFlags: number } | undefined {
  if (!value) return undefined;
  const match = TRACEPARENT.exec(value.trim().toLowerCase());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: parseInt(flags, 16) & 1 };
}

/**
 * A job seen first by this process after its receipt (a restart, another gateway, a replay's original) has no
 * receipt span here: its spans join a trace whose ids are derived from the job id, the same in every process.
 */
export function derivedJobContext(jobId: string): { traceId: string; spanId: string; traceFlags: number } {
  const digest = createHash('sha256').update(`hookwise-job:${jobId}`).digest('hex');
  return { traceId: digest.slice(0, 32), spanId: digest.slice(32, 48), traceFlags: 1 };
}

/** Whether a tracer provider was registered: the API's proxy then has a delegate other than its no-op one. */
function sdkRegistered(api: typeof import('@opentelemetry/api')): boolean {
  const provider = api.trace.getTracerProvider();
  const delegate = provider instanceof api.ProxyTracerProvider ? provider.getDelegate() : provider;
  return delegate.constructor.name !== 'NoopTracerProvider';
}

export function traceGateway(gateway: ObservedGateway, options: GatewayTracingOptions = {}): GatewayTracing {
  const api = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const version = (require('../../package.json') as { version: string }).version;
  const tracer: Tracer = api.trace.getTracer('@hookwise/gateway', version);
  if (!sdkRegistered(api)) {
    gateway.logger.warn(
      'tracing.enabled is set but no OpenTelemetry SDK is registered in this process: spans are made and dropped; register one before the gateway starts (docs/operations.md#traces)',
    );
  }
  const maxJobs = options.maxJobs ?? 10_000;
  const profile = gateway.profile ?? 'default';
  const receipts = new Map<string, SpanContext>();

  const senderContext = (headers: HeaderMap): Context => {
    const parent = parseTraceparent(headerValue(headers, 'traceparent'));
    if (!parent) return api.ROOT_CONTEXT;
    const state = headerValue(headers, 'tracestate');
    return api.trace.setSpanContext(api.ROOT_CONTEXT, { ...parent, isRemote: true, traceState: state ? api.createTraceState(state) : undefined });
  };
  const jobContext = (jobId: string): Context =>
    api.trace.setSpanContext(api.ROOT_CONTEXT, receipts.get(jobId) ?? { ...derivedJobContext(jobId), isRemote: true });
  const remember = (jobId: string, context: SpanContext) => {
    receipts.set(jobId, context);
    if (receipts.size > maxJobs) receipts.delete(receipts.keys().next().value as string);
  };
  /** A span that already happened: made when its event arrives, started `durationMs` earlier. */
  const pastSpan = (name: string, context: Context, durationMs: number, attributes: Attributes, error?: string, kind = api.SpanKind.INTERNAL) => {
    const end = Date.now();
    // Every span names the profile: one collector sees the gateways of every profile the process hosts.
    const span = tracer.startSpan(name, { kind, startTime: end - durationMs, attributes: { ...attributes, 'hookwise.profile': profile } }, context);
    if (error !== undefined) span.setStatus({ code: api.SpanStatusCode.ERROR, message: error });
    span.end(end);
    return span;
  };
  const receipt = (route: string, headers: HeaderMap, receivedAt: number, status: number, attributes: Attributes, error?: string) =>
    pastSpan(
      'hookwise.receive',
      senderContext(headers),
      Math.max(0, Date.now() - receivedAt),
      { 'http.request.method': 'POST', 'http.route': '/webhooks/:route', 'http.response.status_code': status, 'hookwise.route': route, ...attributes },
      error,
      api.SpanKind.SERVER,
    );

  const stops: Array<() => void> = [];
  const on = <K extends LifecycleEventName>(name: K, listener: LifecycleListener<K>) => stops.push(gateway.on(name, listener));
  on('accepted', (e) => {
    const span = receipt(e.route, e.headers, e.receivedAt, 202, {
      'hookwise.outcome': 'accepted',
      'hookwise.event': e.event,
      'hookwise.delivery_id': e.deliveryId,
      'hookwise.job_id': e.jobId,
    });
    remember(e.jobId, span.spanContext());
  });
  on('duplicate', (e) =>
    receipt(e.route, e.headers, e.receivedAt, 200, { 'hookwise.outcome': 'duplicate', 'hookwise.event': e.event, 'hookwise.delivery_id': e.deliveryId }),
  );
  on('ignored', (e) =>
    receipt(e.route, e.headers, e.receivedAt, 200, { 'hookwise.outcome': 'ignored', 'hookwise.event': e.event, 'hookwise.delivery_id': e.deliveryId }),
  );
  on('rejected', (e) => {
    const attributes: Attributes = { 'hookwise.outcome': 'rejected', 'hookwise.reason': e.reason };
    if (e.source !== undefined) attributes['hookwise.source'] = e.source;
    receipt(e.route, e.headers, e.receivedAt, e.status, attributes, e.reason);
  });
  on('agent_finished', (e) => {
    const attributes: Attributes = {
      'hookwise.route': e.route,
      'hookwise.job_id': e.jobId,
      'hookwise.delivery_id': e.deliveryId,
      'hookwise.attempt': e.attempt,
      'hookwise.runner': e.runner,
      'hookwise.outcome': e.outcome,
    };
    // The GenAI semantic conventions' names, so trace backends that know them show the usage.
    if (e.usage?.inputTokens !== undefined) attributes['gen_ai.usage.input_tokens'] = e.usage.inputTokens;
    if (e.usage?.outputTokens !== undefined) attributes['gen_ai.usage.output_tokens'] = e.usage.outputTokens;
    pastSpan('hookwise.agent', jobContext(e.jobId), e.durationMs, attributes, e.error);
  });
  on('delivered', (e) => {
    pastSpan('hookwise.deliver', jobContext(e.jobId), e.durationMs, {
      'hookwise.route': e.route,
      'hookwise.job_id': e.jobId,
      'hookwise.delivery_id': e.deliveryId,
      'hookwise.attempt': e.attempt,
      'hookwise.destination': e.destination,
      'hookwise.outcome': 'delivered',
    });
  });
  // Forgotten when the job is done: each destination of a fan-out has its delivery span in the receipt's trace.
  on('completed', (e) => {
    // A delivered job's spans are its deliveries; a silent or skipped one gets a span that says how it ended.
    if (e.outcome !== 'delivered') {
      const attributes: Attributes = {
        'hookwise.route': e.route,
        'hookwise.job_id': e.jobId,
        'hookwise.delivery_id': e.deliveryId,
        'hookwise.outcome': e.outcome,
      };
      if (e.note !== undefined) attributes['hookwise.note'] = e.note;
      pastSpan('hookwise.complete', jobContext(e.jobId), 0, attributes);
    }
    receipts.delete(e.jobId);
  });
  on('budget_exceeded', (e) =>
    pastSpan('hookwise.budget', jobContext(e.jobId), 0, {
      'hookwise.route': e.route,
      'hookwise.job_id': e.jobId,
      'hookwise.delivery_id': e.deliveryId,
      'hookwise.budget.scope': e.scope,
      'hookwise.budget': e.budget,
      'hookwise.budget.limit': e.limit,
      'hookwise.outcome': e.action,
      'hookwise.note': e.note,
    }),
  );
  // A failed delivery attempt is a span of its own; a failed agent run already has one (agent_finished).
  on('retry_scheduled', (e) => {
    if (e.step !== 'deliver') return;
    pastSpan(
      'hookwise.deliver',
      jobContext(e.jobId),
      e.durationMs,
      {
        'hookwise.route': e.route,
        'hookwise.job_id': e.jobId,
        'hookwise.delivery_id': e.deliveryId,
        'hookwise.attempt': e.attempt,
        'hookwise.destination': e.destination ?? '',
        'hookwise.outcome': 'retry_scheduled',
        'hookwise.retry_in_ms': Math.round(e.delayMs),
      },
      e.error,
    );
  });
  on('dead_lettered', (e) => {
    if (e.step === 'deliver') {
      pastSpan(
        'hookwise.deliver',
        jobContext(e.jobId),
        e.durationMs,
        {
          'hookwise.route': e.route,
          'hookwise.job_id': e.jobId,
          'hookwise.delivery_id': e.deliveryId,
          'hookwise.attempt': e.attempt,
          'hookwise.destination': e.destination ?? '',
          'hookwise.outcome': 'dead_lettered',
        },
        e.error,
      );
    } else {
      pastSpan(
        'hookwise.dead_letter',
        jobContext(e.jobId),
        0,
        { 'hookwise.route': e.route, 'hookwise.job_id': e.jobId, 'hookwise.delivery_id': e.deliveryId, 'hookwise.step': e.step, 'hookwise.attempt': e.attempt },
        e.error,
      );
    }
  });

  return {
    close() {
      for (const stop of stops.splice(0)) stop();
      receipts.clear();
    },
  };
}
