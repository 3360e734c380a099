// Transforms (`transform:` on routes and subscriptions): after verification and before filters and the
// prompt, the payload goes through a JSONata expression or a command (transform-expression.ts,
// transform-command.ts), and what comes out decides:
//   a JSON object       -> it replaces the payload (filters, keys, the prompt and the job see it);
//   other text          -> the payload stays, the text is offered to templates as {__transform__};
//   empty / the marker  -> the event is answered 200 ignored with reason `transform` (its delivery id claimed);
//   a failure           -> on_failure: accept (default) keeps the payload as it came with the error in
//                          {__transform_error__} (the event is never lost), reject answers 503 so the sender retries.
// It runs on the request path, because the answers (200 ignored by the transform, filters over its output)
// are given there: only routes with a transform pay for it, and each run is bounded in time, output and (for
// expressions) concurrency. docs/configuration.md#transforms.
import type { Logger } from 'winston';
import jsonata from 'jsonata';
import { errorMessage } from '@hookwise/core';
import { DEFAULT_SILENT_MARKER } from '../config/schema';
import type { TransformConfig } from '../config/transform-schema';
import type { Route } from '../routes/routes';
import type { AgentSandboxes } from '../jobs/agent-sandbox';
import { runTransformCommand } from './transform-command';
import { runTransformExpression } from './transform-expression';

export const TRANSFORM_DEFAULT_TIMEOUT_SECONDS = 5;
export const TRANSFORM_DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024;
/** The payload keys a transform's text and failure reach templates by: {__transform__}, {__transform_error__}. */
export const TRANSFORM_TEXT_KEY = '__transform__';
export const TRANSFORM_ERROR_KEY = '__transform_error__';

/** What the pipeline does next: go on with this payload, drop the event as ignored, or refuse it (503). */
export type TransformResult =
  { kind: 'payload'; payload: Record<string, unknown>; json: string | undefined } | { kind: 'silent'; reason: string } | { kind: 'reject'; error: string };

/** Problems of a route's `transform:` for startup and subscriptions (the schema checked the shapes). */
export function transformProblems(route: Pick<Route, 'name' | 'transform'>): string[] {
  const transform = route.transform;
  if (!transform) return [];
  const where = `route '${route.name}' transform`;
  const has = (transform.expression !== undefined ? 1 : 0) + (transform.command !== undefined ? 1 : 0);
  if (has !== 1)
    return [
      `${where}: give exactly one of expression (JSONata) or command (a program and its arguments), e.g. transform: { command: [node, /opt/hooks/slim.js] }`,
    ];
  if (transform.expression !== undefined) {
    try {
      jsonata(transform.expression);
    } catch (err) {
      return [`${where}.expression does not parse: ${errorMessage(err)}`];
    }
  }
  if (transform.command !== undefined && transform.command[0].trim() === '') return [`${where}.command: the program (its first entry) is empty`];
  return [];
}

/** A plain JSON object (not a list, not null). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether an output says "nothing to do": empty, or the route's silent marker (surrounding blanks ignored). */
function silentOutput(text: string, marker: string): boolean {
  const trimmed = text.trim();
  return trimmed === '' || trimmed === marker.trim();
}

export interface TransformsOptions {
  sandboxes: AgentSandboxes;
  logger: Logger;
  /** agent.silent_marker (a route's silent_marker wins). */
  silentMarker?: string;
}

export class Transforms {
  constructor(private readonly options: TransformsOptions) {}

  /** Runs the route's transform over the payload (the route has one: the caller checked `route.transform`). */
  async apply(route: Route, payload: Record<string, unknown>, payloadJson: string | undefined, deliveryId: string): Promise<TransformResult> {
    const transform = route.transform as TransformConfig;
    const timeoutMs = (transform.timeout_seconds ?? TRANSFORM_DEFAULT_TIMEOUT_SECONDS) * 1000;
    const marker = route.silentMarker ?? this.options.silentMarker ?? DEFAULT_SILENT_MARKER;
    const json = payloadJson ?? JSON.stringify(payload);
    const meta = { route: route.name, delivery_id: deliveryId };
    let output: unknown;
    let text: string | undefined;
    try {
      if (transform.command) {
        const limits = { timeoutMs, maxOutputBytes: transform.max_output_bytes ?? TRANSFORM_DEFAULT_MAX_OUTPUT_BYTES };
        text = await runTransformCommand(route, transform.command, json, limits, this.options.sandboxes, `transform of ${deliveryId} (route '${route.name}')`);
        output = parsedObject(text);
      } else {
        output = await runTransformExpression(transform.expression as string, json, timeoutMs);
        text = output === undefined || output === null ? '' : typeof output === 'string' ? output : isObject(output) ? undefined : JSON.stringify(output);
      }
    } catch (err) {
      const error = `the transform of route '${route.name}' ${errorMessage(err)}`;
      this.options.logger.warn(`${deliveryId}: ${error}`, meta);
      if (transform.on_failure === 'reject') return { kind: 'reject', error };
      // Never a lost event: the job runs with the payload as it came, and the prompt can say what failed.
      const kept = { ...payload, [TRANSFORM_TEXT_KEY]: '', [TRANSFORM_ERROR_KEY]: error };
      return { kind: 'payload', payload: kept, json: undefined };
    }
    if (isObject(output)) return { kind: 'payload', payload: output, json: undefined };
    const said = text ?? '';
    if (silentOutput(said, marker)) return { kind: 'silent', reason: said.trim() === '' ? 'the transform gave nothing' : `the transform answered ${marker}` };
    // The payload's own __transform__ (a sender's) is overwritten: only the transform speaks there.
    return { kind: 'payload', payload: { ...payload, [TRANSFORM_TEXT_KEY]: said.trim() }, json: undefined };
  }
}

/** A command's output as a JSON object, or undefined when it is other text. */
function parsedObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
