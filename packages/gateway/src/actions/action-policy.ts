// What a route's `actions:` block (actions-schema.ts) offers the agent and allows: one MCP tool per action the route
// names, with the JSON Schema of its arguments, and the check of one call against the route's limits: calls per
// event (`max`, the gateway's for every action, counted across the job's runs by run-actions.ts) and the action's own check (allowed labels, verdicts, destinations). A
// refusal says why, in words the agent can act on; the gateway never performs a refused call.
import type { ValidateFunction, default as Ajv } from 'ajv';
import { errorMessage, type ActionCheck, type ActionOptions } from '@hookwise/core';
import { describeSchemaError } from '../config/load';
import { createAjv } from '../config/lazy-ajv';
import type { ActionCatalogue } from './action-catalogue';
import { isObject } from './action-inputs';
import type { ActionsConfig } from '../config/actions-schema';
import { notOfferedReason } from '../job-channel/channel-tools';

/** One tool as MCP's tools/list describes it. */
export interface ActionTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A call the policy accepted: the action and its arguments, normalised (what the gateway will perform). */
export interface AcceptedCall {
  action: string;
  input: Record<string, unknown>;
}

export type PolicyVerdict = { ok: true; call: AcceptedCall } | { ok: false; reason: string };

/** The tools a route's actions offer, in the catalogue's order (only those the route names and the gateway knows). */
export function actionTools(catalogue: ActionCatalogue, actions: ActionsConfig | undefined): ActionTool[] {
  if (!actions) return [];
  const tools: ActionTool[] = [];
  for (const name of catalogue.names()) {
    const options = actions[name];
    if (!options) continue;
    const { action } = catalogue.get(name)!;
    const description = typeof action.description === 'function' ? action.description(options) : action.description;
    const limit = options.max ? ` At most ${options.max} call(s) per event (all runs of this job together).` : '';
    const inputSchema = typeof action.inputSchema === 'function' ? action.inputSchema(options) : action.inputSchema;
    tools.push({ name, description: description + limit, inputSchema });
  }
  return tools;
}

/** Why a call over the action's `max` is refused: the count is the event's, across every run and retry of its job. */
export function maxReason(name: string, max: number): string {
  return `'${name}' may be called at most ${max} time(s) per event, and this event's runs have used them`;
}

/**
 * Checks one call against the route's actions. `used` is how many calls of that action this event already made
 * (accepted ones only). The reasons name what was asked and what is allowed, so the agent can correct itself.
 */
export function checkCall(catalogue: ActionCatalogue, actions: ActionsConfig | undefined, name: string, args: unknown, used: number): PolicyVerdict {
  const offered = actionTools(catalogue, actions).map((t) => t.name);
  if (!actions || !offered.includes(name)) {
    return { ok: false, reason: notOfferedReason(name, offered) };
  }
  const options = actions[name];
  const max = options.max;
  if (max !== undefined && used >= max) return { ok: false, reason: maxReason(name, max) };
  const input = isObject(args) ? args : {};
  const verdict = actionCheck(catalogue, name, input, options);
  return verdict.ok ? { ok: true, call: { action: name, input: verdict.input } } : verdict;
}

/** The action's own check, else its input schema; a check that throws refuses the call with its message. */
function actionCheck(catalogue: ActionCatalogue, name: string, input: Record<string, unknown>, options: ActionOptions): ActionCheck {
  const { action } = catalogue.get(name)!;
  try {
    if (action.check) return action.check(input, options);
  } catch (err) {
    return { ok: false, reason: `${name} could not check this call: ${errorMessage(err)}` };
  }
  const schema = typeof action.inputSchema === 'function' ? action.inputSchema(options) : action.inputSchema;
  const validate = inputValidator(schema);
  if (validate(input)) return { ok: true, input };
  const problems = (validate.errors ?? []).map((e) => describeSchemaError(e).replace(/^\(root\)/, 'arguments'));
  return { ok: false, reason: `${name}: ${problems.join('; ')}` };
}

let ajv: Ajv | undefined;
const validators = new WeakMap<object, ValidateFunction>();

function inputValidator(schema: Record<string, unknown>): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = (ajv ??= createAjv({ allErrors: true, strict: false })).compile(schema);
    validators.set(schema, validate);
  }
  return validate;
}
