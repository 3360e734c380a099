// ajv is required, and each schema compiled, on first use instead of when @hookwise/core is imported: a CLI
// command pays only for the validators it runs. Internal: not re-exported from index.ts.
import type { default as AjvInstance, Options, ValidateFunction } from 'ajv';

/** A new Ajv instance; the ajv package is required on the first call. */
export function createAjv(options: Options): AjvInstance {
  const { default: Ajv } = require('ajv') as typeof import('ajv');
  return new Ajv(options);
}

/**
 * A getter for the validator of a schema of our own, compiled on its first call and cached. Our schemas are
 * constants checked against the JSON Schema meta-schema by the tests (test/unit/config.test.ts), so ajv does
 * not compile the meta-schema at run time for them (about 70 ms per Ajv instance).
 */
export function lazyValidator(schema: object, options: Options): () => ValidateFunction {
  let validate: ValidateFunction | undefined;
  return () => (validate ??= createAjv({ ...options, validateSchema: false }).compile(schema));
}
