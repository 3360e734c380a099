// Every action a route may name under `actions:`: those the registered deliverers contribute (core's
// DelivererContribution.actions), in registration order, then the gateway's own (message, subscribe). The gateway
// names no contributed action: a plugin that adds one needs no change here. Also checks a route's block at startup:
// an unknown name (with a "did you mean"), or options its action's schema refuses.
import type { ErrorObject, ValidateFunction, default as Ajv } from 'ajv';
import { closestMatch, type DelivererAction, type DelivererContribution } from '@hookwise/core';
import { describeSchemaError } from '../config/load';
import { createAjv } from '../config/lazy-ajv';
import type { PluginRegistry } from '../plugins/registry';
import type { ActionsConfig } from '../config/actions-schema';
import { maxPerRunSchema } from '../config/actions-schema';
import { BUILTIN_ACTIONS, type BuiltinAction } from './builtin-actions';

/** One known action and who performs it. */
export interface CatalogueEntry {
  action: DelivererAction | BuiltinAction;
  /** The deliverer that contributes and performs it, with its plugin; absent for the gateway's own. */
  by?: { deliverer: string; plugin: string; requiresEnabled: boolean };
}

let ajv: Ajv | undefined;

export class ActionCatalogue {
  private readonly entries = new Map<string, CatalogueEntry>();
  private readonly validators = new Map<string, ValidateFunction>();
  /** Actions contributed twice (the first one is kept): reported by the gateway's start(). */
  readonly conflicts: string[] = [];

  constructor(entries: Iterable<CatalogueEntry>) {
    for (const entry of entries) {
      const { name } = entry.action;
      const existing = this.entries.get(name);
      if (existing) {
        const who = (e: CatalogueEntry) => (e.by ? `deliverer '${e.by.deliverer}' (${e.by.plugin})` : 'the gateway');
        this.conflicts.push(`action '${name}' is contributed twice: by ${who(existing)} and by ${who(entry)}; remove one of the plugins`);
        continue;
      }
      this.entries.set(name, entry);
    }
  }

  /** The contributed actions of every registered deliverer, then the gateway's own. */
  static fromRegistry(registry: PluginRegistry): ActionCatalogue {
    const contributed = registry.list('deliverer').flatMap(({ contribution, pluginName }) => {
      const deliverer = contribution as DelivererContribution;
      return (deliverer.actions ?? []).map((action): CatalogueEntry => ({
        action,
        by: { deliverer: deliverer.id, plugin: pluginName, requiresEnabled: deliverer.requiresEnabled === true },
      }));
    });
    return new ActionCatalogue([...contributed, ...BUILTIN_ACTIONS.map((action) => ({ action }))]);
  }

  get(name: string): CatalogueEntry | undefined {
    return this.entries.get(name);
  }

  /** Every known name, in the order tools are offered. */
  names(): string[] {
    return [...this.entries.keys()];
  }

  /** Problems with a route's `actions:` block: unknown names and options their action refuses. */
  problems(where: string, actions: ActionsConfig | undefined): string[] {
    const problems: string[] = [];
    for (const [name, options] of Object.entries(actions ?? {})) {
      if (!this.entries.has(name)) {
        const match = closestMatch(name, this.names());
        problems.push(
          `${where}: unknown action '${name}'${match ? ` (did you mean '${match}'?)` : ''}; known: ${this.names().join(', ')} (a deliverer plugin may contribute others)`,
        );
        continue;
      }
      const validate = this.validator(name);
      // A copy: defaults the schema may have are the action's business, not written into the route.
      if (!validate(structuredClone(options ?? {}))) {
        for (const error of validate.errors ?? []) problems.push(`${where} actions.${name}${this.describe(name, error)}`);
      }
    }
    return problems;
  }

  /** An options error as the config's are worded; an unknown key names the action's own keys. */
  private describe(name: string, error: ErrorObject): string {
    if (error.keyword === 'additionalProperties' && error.instancePath === '') {
      const key = (error.params as { additionalProperty: string }).additionalProperty;
      const known = Object.keys((this.validator(name).schema as { properties: Record<string, unknown> }).properties);
      const match = closestMatch(key, known);
      return `: unknown key '${key}'${match ? ` (did you mean '${match}'?)` : ''}; known: ${known.join(', ')}`;
    }
    const message = describeSchemaError(error);
    return message.startsWith('(root)') ? message.slice('(root)'.length) : `.${message}`;
  }

  /** The action's options schema with the gateway's `max` added (a schema-less action takes `max` only). */
  private validator(name: string): ValidateFunction {
    let validate = this.validators.get(name);
    if (!validate) {
      const own = (this.entries.get(name)!.action.optionsSchema ?? { type: 'object', additionalProperties: false }) as Record<string, unknown>;
      const properties = { ...((own.properties as Record<string, unknown> | undefined) ?? {}), max: maxPerRunSchema };
      validate = (ajv ??= createAjv({ allErrors: true, strict: false })).compile({ ...own, type: 'object', properties });
      this.validators.set(name, validate);
    }
    return validate;
  }
}
