// The JSON Schema type of what a plugin declares it takes: a contribution's options, an action's options and input.

/** JSON Schema for a contribution's options (validated with ajv, defaults applied, before create()). */
export type OptionsSchema = Record<string, unknown>;
