// ajv is required on first use instead of when @hookwise/core is imported: only plugin option schemas (registry.ts)
// are compiled at run time. Our own schemas (config, subscription entries) have validators generated ahead of time
// by scripts/gen-validators.js (src/generated/), so a CLI command loads no ajv for them. Internal: not re-exported
// from index.ts.
import type { default as AjvInstance, Options } from 'ajv';

/** A new Ajv instance; the ajv package is required on the first call. */
export function createAjv(options: Options): AjvInstance {
  const { default: Ajv } = require('ajv') as typeof import('ajv');
  return new Ajv(options);
}
