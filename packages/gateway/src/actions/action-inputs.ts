// Small shape checks shared by the gateway's own actions and the policy.

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;

/** A non-empty text argument's JSON Schema. */
export const textInput = (description: string) => ({ type: 'string', minLength: 1, description });
