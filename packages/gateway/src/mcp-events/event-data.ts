// What of a job leaves through MCP Events (events/poll, events/stream, webhook deliveries): the route's
// `mcp_private_fields` taken out of the payload, then every string of it (keys too) and the event id passed through
// the gateway's one exit for text (observe/outbound-scrub.ts), so no registered secret or credential-named
// environment value leaves. A subscriber's filter is tested on this same `data`: what it cannot see, it cannot probe
// (an `equals` on a withheld field or on a secret would otherwise answer yes or no about it).
import type { Job, SourcePayloadSchema } from '@hookwise/core';
import type { CompiledFilter } from '../filters/filters';
import { requestViewOf } from '../filters/filter-tests';
import type { OutboundScrubber } from '../observe/outbound-scrub';
import type { Route } from '../routes/routes';
import { isTypeEvent } from './event-types';

/** A step of a private path that stands for every key of an object and every element of a list. */
export const ANY_STEP = '*';

export interface EventOccurrence {
  eventId: string;
  name: string;
  timestamp: string;
  data: Record<string, unknown>;
  cursor?: string | null;
}

/** The payload as any JSON object: what a sender that documents none posted, or a route's transform made. */
const OPEN_OBJECT = { type: 'object', additionalProperties: true } as const;

/**
 * What `data` holds on a route's event type (`event`: set for `<route>/<event>`): a route's transform output is any
 * object; otherwise its source's schema for that event type, else for every payload, else any object.
 */
export function sourceSchemaOf(
  route: Pick<Route, 'transform'> | undefined,
  event: string | undefined,
  declared: SourcePayloadSchema | undefined,
): Record<string, unknown> {
  if (!route || route.transform !== undefined || !declared) return OPEN_OBJECT;
  const named = event === undefined ? undefined : Object.keys(declared.events ?? {}).find((key) => isTypeEvent(event, key));
  return (named !== undefined ? declared.events?.[named] : undefined) ?? declared.envelope;
}

const matches = (step: string, key: string) => step === ANY_STEP || step === key;

/** `value` without what `steps` reaches; the parts it passes through are copied, the payload is never changed. */
function without(value: unknown, steps: readonly string[]): unknown {
  if (value === null || typeof value !== 'object' || steps.length === 0) return value;
  const [step, ...rest] = steps;
  if (Array.isArray(value)) {
    if (step !== ANY_STEP && !/^\d+$/.test(step)) return value;
    if (rest.length === 0) return value.filter((_, i) => !matches(step, String(i)));
    return value.map((item, i) => (matches(step, String(i)) ? without(item, rest) : item));
  }
  // Object.fromEntries defines own properties: a payload's own `__proto__` key stays a key, never a prototype.
  const entries = Object.entries(value as Record<string, unknown>);
  if (rest.length === 0) return Object.fromEntries(entries.filter(([key]) => !matches(step, key)));
  return Object.fromEntries(entries.map(([key, inner]) => [key, matches(step, key) ? without(inner, rest) : inner]));
}

/** The payload without the route's private fields. */
export function withheld(payload: unknown, privateFields: readonly string[] | undefined): unknown {
  let out = payload;
  for (const path of privateFields ?? []) out = without(out, path.split('.'));
  return out;
}

/** A withheld key is no longer required where the source's schema requires it (`key` unset: every key and element). */
function unrequire(node: Record<string, unknown>, key?: string): void {
  const required = Array.isArray(node.required) ? (node.required as unknown[]).filter((k) => key !== undefined && k !== key) : [];
  if (required.length) node.required = required;
  else delete node.required;
  if (key === undefined) delete node.minItems;
}

/**
 * The `payloadSchema` of a route's event type: `base` (sourceSchemaOf; default any object), and for a route with
 * private fields, a copy of it with a description naming them and each one as a property that must be absent
 * (`false`, and no longer `required`), nested along its path (`*` as every key and every element; an index as the
 * key it also names on an object). `base` itself is never changed: it is the source plugin's.
 */
export function payloadSchemaOf(route: Pick<Route, 'mcpPrivateFields'> | undefined, base: Record<string, unknown> = OPEN_OBJECT): Record<string, unknown> {
  const paths = route?.mcpPrivateFields ?? [];
  if (!paths.length) return base;
  const about = typeof base.description === 'string' ? `${base.description} ` : '';
  const schema: Record<string, unknown> = {
    ...(structuredClone(base) as Record<string, unknown>),
    description: `${about}The payload as the route stored it, without the fields the route keeps private (mcp_private_fields), which the gateway withholds: ${paths.join(', ')}.`,
  };
  for (const path of paths) {
    let node = schema;
    const steps = path.split('.');
    for (const [i, step] of steps.entries()) {
      const last = i === steps.length - 1;
      if (step === ANY_STEP) {
        // Every key (patternProperties '' matches any) and every element.
        if (node.items === false) break;
        const next: Record<string, unknown> | false = last ? false : ((node.items as Record<string, unknown> | undefined) ?? {});
        node.items = next;
        node.patternProperties = { ...(node.patternProperties as object), '': next };
        if (next === false) {
          unrequire(node);
          break;
        }
        node = next;
        continue;
      }
      const properties = (node.properties as Record<string, unknown> | undefined) ?? {};
      node.properties = properties;
      if (last) {
        properties[step] = false;
        unrequire(node, step);
        break;
      }
      const existing = properties[step];
      const next = existing !== null && typeof existing === 'object' ? (existing as Record<string, unknown>) : {};
      // A path under one already withheld whole adds nothing.
      if (existing === false) break;
      properties[step] = next;
      node = next;
    }
  }
  return schema;
}

/** Shapes occurrences of jobs as they leave: private fields out, secrets scrubbed. */
export class EventData {
  constructor(private readonly outbound: Pick<OutboundScrubber, 'scrub' | 'scrubValue'>) {}

  private text(text: string): string {
    return this.outbound.scrub('mcp-event', text);
  }

  /** The occurrence of `job` as event type `name` of `route`, without its cursor. */
  occurrenceOf(job: Job, name: string, route: Pick<Route, 'mcpPrivateFields'> | undefined): EventOccurrence {
    // Every string scrubbed, keys included, at any depth (core's scrubValue); arrays and objects copied.
    const data = this.outbound.scrubValue('mcp-event', withheld(job.payload, route?.mcpPrivateFields));
    return {
      eventId: this.text(job.deliveryId),
      name,
      timestamp: new Date(job.receivedAt).toISOString(),
      data: data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {},
    };
  }

  /** Whether an occurrence passes a subscriber's filter, tested on the `data` it would carry (`event`: the job's). */
  async passes(filter: CompiledFilter | undefined, occurrence: EventOccurrence, job: Job): Promise<boolean> {
    if (!filter) return true;
    let verdict = filter.test(occurrence.data, undefined, filter.namesRequest ? requestViewOf({}, job.event) : undefined);
    if (verdict instanceof Promise) verdict = await verdict;
    return verdict.passed;
  }
}
