// Route actions: what a deliverer plugin lets a route's agent do during its run (post a comment, add labels, review
// a pull request), offered to the agent as MCP tools on its job channel. The plugin says what an action takes and
// does; the gateway keeps the rest: which actions a route allows and how often (`actions:` and `max`), the
// exactly-once keys, retries with backoff and the records of every call.
import type { Deliverer } from './contracts';
import type { OptionsSchema } from './options-schema';

/** A route's block for one action (`actions: {<name>: {...}}`), checked against the action's `optionsSchema`. */
export type ActionOptions = Record<string, unknown> & {
  /** At most this many calls per run: counted and enforced by the gateway for every action. */
  max?: number;
};

/** An action's verdict on one call: the arguments to perform (normalised), or why not, in words the agent can act on. */
export type ActionCheck = { ok: true; input: Record<string, unknown> } | { ok: false; reason: string };

/** What one accepted call of an action is performed with. */
export interface ActionContext<D extends Deliverer = Deliverer> {
  /** The contributing deliverer, created from its `platforms.<id>` block as for a delivery (its credentials). */
  deliverer: D;
  /** The payload of the event the run is about: where the action finds what it acts on (the issue, the merge request). */
  payload: unknown;
  /** The route's options for this action. */
  options: ActionOptions;
  /** Aborted when the run ends or the gateway shuts down. */
  signal: AbortSignal;
  /** 1 for the first try, 2 for the gateway's first retry of this call, ... */
  attempt: number;
  route: string;
  deliveryId: string;
}

/**
 * One action a deliverer contributes (`DelivererContribution.actions`), named `<platform>.<verb>` by convention
 * (`github.comment`, `gitea.comment`). A route allows it by naming it under `actions:`; nothing else in the gateway
 * names it.
 */
export interface DelivererAction<O = ActionOptions, D extends Deliverer = Deliverer> {
  name: string;
  /** The tool's description for the agent; a function when it names the route's limits ("Allowed labels: bug."). */
  description: string | ((options: O) => string);
  /**
   * JSON Schema of what a route may set for this action besides `max` (the gateway's), checked at startup: e.g.
   * `allow` (a label allowlist). Absent: nothing but `max`.
   */
  optionsSchema?: OptionsSchema;
  /** JSON Schema of the tool's arguments; a function when the route's options narrow them (an allowlist as an enum). */
  inputSchema: OptionsSchema | ((options: O) => OptionsSchema);
  /**
   * Checks one call against the route's options and answers the arguments to perform, normalised, or the reason
   * it is refused. Absent: the arguments are checked against `inputSchema`.
   */
  check?(input: Record<string, unknown>, options: O): ActionCheck;
  /**
   * Performs an accepted call and resolves to its receipt (ids, URLs), which the agent reads as the tool's result.
   * Throws a HookwiseError with `retryable` set: the gateway retries retryable failures with its backoff.
   */
  run(input: Record<string, unknown>, context: ActionContext<D> & { options: O }): Promise<unknown>;
}
