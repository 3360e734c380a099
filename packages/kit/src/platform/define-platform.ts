// definePlatform(): turns a short description of one messaging platform (limit, schema, id format, how to
// build the request for one chunk, what its success answer is, how to read its errors, how to check
// credentials) into a Hookwise deliverer. Everything the fifteen platforms share lives here: target
// resolution and validation, allowed_targets, markdown handling, chunking, the cap on parts, pacing between
// parts, HTTP without redirects, error mapping, inline 429 waits, token refresh, redaction, resuming a
// half-sent answer.
import type { DelivererContribution, OptionsSchema, PluginContext } from '@hookwise/core';
import type { PlatformOptions } from './options-schema';
import { DEFAULT_MAX_PARTS, PlatformDeliverer } from './platform-deliverer';
import type { PlatformDefinition, PlatformDelivererOverrides } from './platform-definition';

// The description's types and the deliverer live beside this file; they are re-exported from here, where plugins
// and the kit's index have always found them.
export { DEFAULT_MAX_PARTS, PlatformDeliverer, truncationNotice } from './platform-deliverer';
export type {
  OutgoingChunk,
  PlatformCall,
  PlatformDefinition,
  PlatformDelivererOverrides,
  PlatformReceipt,
  PlatformResponse,
  PlatformRuntime,
  SentPart,
  SuccessRule,
} from './platform-definition';

/** A platform's deliverer contribution, with its definition and a factory that takes overrides (tests, a store). */
export interface PlatformContribution<O extends PlatformOptions> extends DelivererContribution<O> {
  platform: PlatformDefinition<O>;
  createDeliverer(options: O, ctx: PluginContext, overrides?: PlatformDelivererOverrides): PlatformDeliverer<O>;
}

/** A platform plugin's deliverer contribution: `contributes: [definePlatform({...})]`. */
export function definePlatform<O extends PlatformOptions>(def: PlatformDefinition<O>): PlatformContribution<O> {
  if (def.request && !def.success)
    throw new Error(`${def.id}: a platform that sends with request() must state its success answer (success), or a 2xx from anything would count as delivered`);
  // The schema states the platform's own default for max_parts (shown by `hookwise config` and in docs).
  const schema = def.optionsSchema as { properties?: Record<string, Record<string, unknown>> };
  const optionsSchema: OptionsSchema = schema.properties?.max_parts
    ? { ...schema, properties: { ...schema.properties, max_parts: { ...schema.properties.max_parts, default: def.maxParts ?? DEFAULT_MAX_PARTS } } }
    : def.optionsSchema;
  const createDeliverer = (options: O, ctx: PluginContext, overrides?: PlatformDelivererOverrides) => new PlatformDeliverer(def, options, ctx, overrides);
  return {
    kind: 'deliverer',
    id: def.id,
    ...(def.aliases?.length ? { aliases: def.aliases } : {}),
    description: def.description ?? `Delivers answers to ${def.title}.`,
    requiresEnabled: true,
    optionsSchema,
    create: (options, ctx) => createDeliverer(options, ctx),
    platform: def,
    createDeliverer,
  };
}
