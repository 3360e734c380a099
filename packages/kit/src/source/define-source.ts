// defineSource: the shape every source plugin repeated around its verify, eventType and deliveryId (the
// contribution object, its options schema, header lookups) said once, so that a source says only what differs.
import {
  firstHeaderValue,
  headerValue,
  type PluginContext,
  type Source,
  type SourceContribution,
  type SourcePayloadSchema,
  type SourceRequest,
} from '@hookwise/core';

/**
 * Where a value is read: a header name, several header names (the sender's own first, then aliases: the first
 * one present wins), or a function of the request and its parsed payload.
 */
export type SourceRead = string | readonly string[] | ((req: SourceRequest, payload: Record<string, unknown>) => string | undefined);

/** What is particular to a sender: the rest of core's Source, with eventType and deliveryId as SourceReads. */
export interface SourceStyle extends Omit<Source, 'eventType' | 'deliveryId'> {
  eventType?: SourceRead;
  deliveryId?: SourceRead;
}

export interface SourceDefinition<O> {
  id: string;
  /** Other names for it (the SPEC's spellings), accepted wherever the id is. */
  aliases?: string[];
  description: string;
  /** The properties of its `source_options`; no other key is allowed (a misspelt option fails at startup). */
  options?: Record<string, unknown>;
  /**
   * The JSON Schema of the payloads it stores (every one, and optionally per event type), written from the sender's
   * documentation: the `payloadSchema` of MCP Events types on its routes. Kept in the plugin's src/payload-schema.ts.
   */
  payloadSchema?: SourcePayloadSchema;
  /** The sender's style for these options (the gateway applies the schema's defaults first); ctx when the gateway loads it. */
  style(options: O, ctx?: PluginContext): SourceStyle;
}

/** A source contribution whose create() also serves code and tests directly: synchronous, options optional. */
export interface DefinedSource<O> extends SourceContribution<O> {
  optionsSchema: { type: 'object'; additionalProperties: false; properties: Record<string, unknown> };
  create(options?: O, ctx?: PluginContext): Source;
}

/** A SourceRead as the function core's Source expects. */
export function sourceReader(read: SourceRead | undefined): Source['eventType'] {
  if (read === undefined || typeof read === 'function') return read as Source['eventType'];
  if (typeof read === 'string') return (req) => headerValue(req.headers, read);
  return (req) => firstHeaderValue(req.headers, read as readonly string[]);
}

export function defineSource<O extends object = Record<string, never>>(def: SourceDefinition<O>): DefinedSource<O> {
  return {
    kind: 'source',
    id: def.id,
    ...(def.aliases ? { aliases: def.aliases } : {}),
    description: def.description,
    ...(def.payloadSchema ? { payloadSchema: def.payloadSchema } : {}),
    optionsSchema: { type: 'object', additionalProperties: false, properties: def.options ?? {} },
    create(options = {} as O, ctx?: PluginContext) {
      const { eventType, deliveryId, ...style } = def.style(options, ctx);
      const source: Source = { ...style };
      // Left out rather than undefined: the gateway's fallbacks (payload event_type, X-Request-ID) apply then.
      if (eventType !== undefined) source.eventType = sourceReader(eventType);
      if (deliveryId !== undefined) source.deliveryId = sourceReader(deliveryId);
      return source;
    },
  };
}
