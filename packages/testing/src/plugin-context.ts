// A PluginContext for unit tests of a plugin: captures every log line and every secret the plugin
// registers with ctx.redact(), without the gateway's own scrubbing unless asked (so tests prove the plugin
// keeps secrets out of its output by itself).
import { Writable } from 'node:stream';
import { createLogger, Redactor } from '@hookwise/gateway';
import { isHookwiseError, type DeliverOptions, type DeliveryMessage, type HookwiseError, type PluginContext } from '@hookwise/core';

export interface TestPluginContext {
  ctx: PluginContext;
  /** Every log line written so far (JSON format). */
  logs: string[];
  /** Secrets the plugin registered with ctx.redact(). */
  redacted: string[];
  /** Aborts ctx.signal (simulates gateway shutdown). */
  abort(): void;
}

export function createTestPluginContext(options: { gatewayRedaction?: boolean; env?: NodeJS.ProcessEnv; configDir?: string } = {}): TestPluginContext {
  const logs: string[] = [];
  const redacted: string[] = [];
  const redactor = new Redactor();
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString('utf8').trimEnd());
      done();
    },
  });
  const logger = createLogger({ level: 'debug', format: 'json', stream, redactor: options.gatewayRedaction ? redactor : undefined });
  const controller = new AbortController();
  const ctx: PluginContext = {
    logger,
    configDir: options.configDir ?? process.cwd(),
    env: options.env ?? {},
    signal: controller.signal,
    redact(secret) {
      if (!secret) return;
      redacted.push(secret);
      redactor.add(secret);
    },
    scrub: (text) => redactor.redact(text),
  };
  return { ctx, logs, redacted, abort: () => controller.abort() };
}

/** A DeliveryMessage as the worker builds it, for deliverer tests. */
export function deliveryMessage(text: string, extra: Record<string, string> = {}, deliveryId = 'delivery-1'): DeliveryMessage {
  return { text, route: 'test-route', event: 'push', deliveryId, extra };
}

export function deliverOptions(attempt = 1): DeliverOptions {
  return { signal: new AbortController().signal, attempt };
}

/** The HookwiseError a promise rejects with; fails the test when it resolves or throws something else. */
export async function rejectionOf(promise: Promise<unknown>): Promise<HookwiseError> {
  const outcome = await promise.then(
    () => ({ resolved: true as const }),
    (err: unknown) => ({ resolved: false as const, err }),
  );
  if (outcome.resolved) throw new Error('expected the call to fail, but it succeeded');
  if (!isHookwiseError(outcome.err)) throw new Error(`expected a HookwiseError, got: ${String(outcome.err)}`);
  return outcome.err;
}
