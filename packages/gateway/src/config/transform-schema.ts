// `transform:` on a route or subscription: a JSONata expression or a command that reshapes the payload
// after verification and before filters and the prompt (jobs/transform.ts, docs/configuration.md#transforms).

/** Longest a transform may take; a command past it is killed, an expression abandoned. */
export const TRANSFORM_MAX_TIMEOUT_SECONDS = 60;

export const transformSchema = {
  type: 'object',
  additionalProperties: false,
  description:
    'Reshapes the payload before filters and the prompt: a JSON object replaces it, other text becomes {__transform__}, empty output or the silent marker answers 200 ignored (reason transform). One of expression or command. See docs/configuration.md#transforms.',
  properties: {
    expression: { type: 'string', description: 'A JSONata expression over the payload (bounded like filter expressions).' },
    command: {
      type: 'array',
      minItems: 1,
      items: { type: 'string' },
      description: "Program and arguments; the payload's JSON on stdin, run in the agent sandbox with no network and no config dir.",
    },
    timeout_seconds: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: TRANSFORM_MAX_TIMEOUT_SECONDS,
      description: 'Time limit of one run (default 5; a command past it is killed).',
    },
    max_output_bytes: { type: 'integer', minimum: 1, description: 'Most output kept (default 262144); more fails the transform.' },
    on_failure: {
      type: 'string',
      enum: ['accept', 'reject'],
      description:
        'accept (default): the event is accepted with its payload as it came and the failure in {__transform_error__}; reject: answered 503 with Retry-After, nothing claimed, so the sender retries.',
    },
  },
} as const;

export interface TransformConfig {
  expression?: string;
  command?: string[];
  timeout_seconds?: number;
  max_output_bytes?: number;
  on_failure?: 'accept' | 'reject';
}
