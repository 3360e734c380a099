// Writing a source's payload schema (SourceContribution.payloadSchema) in a few lines: an open object (JSON Schema
// draft 2020-12) with the sender's documented top-level fields, a description naming the sender and the docs page
// it comes from. `required` lists only what the docs say every payload carries: a wrong one would make a client
// that validates refuse real events.

/** A JSON type name, or several (`['string', 'null']`). */
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/** A field of the given type(s), with what it holds. */
export function field(type: JsonType | readonly JsonType[], description?: string): Record<string, unknown> {
  return { type: typeof type === 'string' ? type : [...type], ...(description ? { description } : {}) };
}

/** A list whose elements match `items`. */
export function listOf(items: Record<string, unknown>, description?: string): Record<string, unknown> {
  return { type: 'array', items, ...(description ? { description } : {}) };
}

export interface OpenObjectSchema {
  /** What the payload is, naming the sender (`GitHub pull_request event`). */
  description: string;
  /** The sender's documentation page it is written from (an https URL). */
  docs: string;
  properties: Record<string, Record<string, unknown>>;
  /** The fields the docs say are always present. */
  required?: readonly string[];
}

/** An open object schema: other fields allowed, the documented ones typed. */
export function openObject(def: OpenObjectSchema): Record<string, unknown> {
  return {
    type: 'object',
    description: def.description,
    $comment: `Written from ${def.docs}`,
    properties: def.properties,
    ...(def.required?.length ? { required: [...def.required] } : {}),
    additionalProperties: true,
  };
}
