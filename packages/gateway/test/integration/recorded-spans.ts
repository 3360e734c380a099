// Spans of real gateways, recorded by the OpenTelemetry SDK's in-memory exporter: shared by the gateway's and the
// server's tracing tests.
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

export interface RecordedSpans {
  /** Every span finished since the current test began. */
  all(): ReadableSpan[];
  /** The finished spans of one delivery (attribute hookwise.delivery_id). */
  of(deliveryId: string): ReadableSpan[];
}

/**
 * Registers the jest hooks that record the test file's spans: an in-memory exporter behind the global tracer
 * provider for the file (disabled and shut down after it), emptied before each test.
 */
export function recordSpans(): RecordedSpans {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => {
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(async () => {
    trace.disable();
    await provider.shutdown();
  });
  beforeEach(() => exporter.reset());
  return {
    all: () => exporter.getFinishedSpans(),
    of: (deliveryId) => exporter.getFinishedSpans().filter((s) => s.attributes['hookwise.delivery_id'] === deliveryId),
  };
}
