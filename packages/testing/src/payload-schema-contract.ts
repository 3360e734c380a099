/// <reference types="jest" />
// Jest contract test for a source's payload schema (SourceContribution.payloadSchema): each schema compiles as JSON
// Schema draft 2020-12 (Ajv, strict), stays open and says where it comes from, and every documented payload the
// source's own tests use is valid against it (a schema that refuses a real payload would make a client's
// validation refuse real events). Each per-event schema must be shown at least one payload of its type.
import Ajv2020 from 'ajv/dist/2020';
import type { SourceContribution, SourceRequest } from '@hookwise/core';

export interface PayloadSample {
  /** Where it comes from (the sender's docs page or the test that uses it). */
  name: string;
  /** Its event type as the source names it: checked against that type's schema as well, when there is one. */
  event?: string;
  /** The payload as the gateway stores it. */
  payload?: unknown;
  /** Or the request body as sent, parsed by the source's own parse (else read as JSON). */
  body?: string;
  contentType?: string;
  /** The URL it was posted to, for a source whose parse reads it. */
  url?: string;
}

/**
 * A validator of `schema` (draft 2020-12) as a client would run one: the errors of a payload it refuses, null for
 * one it accepts. Not Ajv's strict mode, which also lints style (a `properties` without a `type`, as the gateway's
 * marks of private fields are): the contract compiles a source's own schemas strictly.
 */
export function payloadSchemaValidator(schema: Record<string, unknown>): (payload: unknown) => unknown[] | null {
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
  return (payload) => (validate(payload) ? null : [...(validate.errors ?? [])]);
}

/** The stored payload of a sample. */
export function samplePayload(source: SourceContribution, sample: PayloadSample, options: Record<string, unknown> = {}): unknown {
  if (sample.body === undefined) return sample.payload;
  const instance = source.create(options, undefined as never);
  if (instance instanceof Promise) throw new Error(`${source.id}: create() is asynchronous; give the sample's payload instead of its body`);
  const req: SourceRequest = {
    headers: { 'content-type': sample.contentType ?? 'application/json' },
    rawBody: Buffer.from(sample.body),
    url: sample.url ?? 'https://hooks.example.com/webhooks/route',
    receivedAt: Date.now(),
  };
  return instance.parse ? instance.parse(req) : JSON.parse(sample.body);
}

export function describeSourcePayloadSchema(source: SourceContribution, samples: readonly PayloadSample[], options: Record<string, unknown> = {}): void {
  describe(`source '${source.id}': payload schema contract`, () => {
    const declared = source.payloadSchema;
    const schemas: Record<string, Record<string, unknown>> = declared ? { '(every event)': declared.envelope, ...declared.events } : {};

    it('declares schemas that compile (draft 2020-12), stay open, and name the sender and its docs', () => {
      expect(declared).toBeDefined();
      for (const [name, schema] of Object.entries(schemas)) {
        expect({ name, compiles: typeof new Ajv2020({ strict: true, allowUnionTypes: true }).compile(schema) }).toEqual({ name, compiles: 'function' });
        expect({ name, additionalProperties: schema.additionalProperties }).toEqual({ name, additionalProperties: true });
        expect({ name, description: typeof schema.description }).toEqual({ name, description: 'string' });
        expect({ name, docs: JSON.stringify(schema.$comment ?? '') }).toEqual({ name, docs: expect.stringMatching(/https:\/\//) });
      }
    });

    it('accepts every documented payload its tests use', () => {
      expect(samples.length).toBeGreaterThan(0);
      for (const sample of samples) {
        const payload = samplePayload(source, sample, options);
        const applies = [declared!.envelope, ...(sample.event !== undefined && declared!.events?.[sample.event] ? [declared!.events[sample.event]] : [])];
        for (const schema of applies) {
          expect({ sample: sample.name, errors: payloadSchemaValidator(schema)(payload) }).toEqual({ sample: sample.name, errors: null });
        }
      }
    });

    it('is shown a payload of each event type it has a schema of', () => {
      const shown = new Set(samples.map((s) => s.event));
      for (const event of Object.keys(declared?.events ?? {})) expect({ event, shown: shown.has(event) }).toEqual({ event, shown: true });
    });
  });
}
