// Holds every contribution by kind and id, validates options against their schemas and creates wrapped instances.
import type { default as Ajv } from 'ajv';
import type { Logger } from 'winston';
import type { AgentRunner, Deliverer, Verifier } from '@hookwise/core';
import { HookwiseConfigError, wrapPluginError } from '@hookwise/core';
import type { LoadedPlugin } from './loader';
import type { Contribution, ContributionKind, PluginContext } from '@hookwise/core';
import { describeSchemaError } from './config/load';
import { createAjv } from './lazy-ajv';

export interface RegisteredContribution {
  contribution: Contribution;
  pluginName: string;
  pluginVersion: string;
  baseOptions: Record<string, unknown>;
}

type Instance<K extends ContributionKind> = K extends 'verifier' ? Verifier : K extends 'deliverer' ? Deliverer : AgentRunner;

export interface CreateContext {
  logger: Logger;
  configDir: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  redact(secret: string | undefined): void;
}

// Created on the first options schema: plugin schemas are not ours, so ajv still checks them against the
// meta-schema.
let ajv: Ajv | undefined;

export class PluginRegistry {
  private readonly entries = new Map<string, RegisteredContribution>();

  /** Registers every contribution; duplicate `kind:id` pairs are collected as problems. */
  constructor(plugins: readonly LoadedPlugin[]) {
    const problems: string[] = [];
    for (const { plugin, options } of plugins) {
      for (const contribution of plugin.contributes) {
        const key = `${contribution.kind}:${contribution.id}`;
        const existing = this.entries.get(key);
        if (existing) {
          problems.push(`${contribution.kind} '${contribution.id}' is contributed twice: by ${existing.pluginName} and by ${plugin.meta.name}; remove one of them from plugins:`);
          continue;
        }
        this.entries.set(key, { contribution, pluginName: plugin.meta.name, pluginVersion: plugin.meta.version, baseOptions: options });
      }
    }
    if (problems.length) throw new HookwiseConfigError(problems, 'plugins conflict');
  }

  get(kind: ContributionKind, id: string): RegisteredContribution | undefined {
    return this.entries.get(`${kind}:${id}`);
  }

  ids(kind: ContributionKind): string[] {
    return [...this.entries.values()].filter((e) => e.contribution.kind === kind).map((e) => e.contribution.id);
  }

  list(kind?: ContributionKind): RegisteredContribution[] {
    return [...this.entries.values()].filter((e) => !kind || e.contribution.kind === kind);
  }

  /** Validates options (defaults applied); returns the problems, each naming `where` (a config key path). */
  validateOptions(kind: ContributionKind, id: string, options: Record<string, unknown>, where: string): { options: Record<string, unknown>; problems: string[] } {
    const entry = this.get(kind, id);
    if (!entry) return { options, problems: [`${where}: no ${kind} '${id}' is registered`] };
    const merged = structuredClone({ ...entry.baseOptions, ...options });
    const schema = entry.contribution.optionsSchema;
    if (!schema) return { options: merged, problems: [] };
    const validate = (ajv ??= createAjv({ allErrors: true, useDefaults: true, strict: false })).compile(schema);
    if (validate(merged)) return { options: merged, problems: [] };
    const problems = (validate.errors ?? []).map((e) => {
      const message = describeSchemaError(e);
      return `${where}${message.startsWith('(root)') ? message.slice('(root)'.length) : `.${message}`}`;
    });
    return { options: merged, problems };
  }

  /** Creates an instance whose every method call reports errors with the plugin, kind and method. */
  async create<K extends ContributionKind>(kind: K, id: string, options: Record<string, unknown>, ctx: CreateContext): Promise<Instance<K>> {
    const entry = this.get(kind, id);
    if (!entry) throw new HookwiseConfigError([`no ${kind} '${id}' is registered`]);
    const where = { plugin: entry.pluginName, kind, id };
    const pluginCtx: PluginContext = { ...ctx, logger: ctx.logger.child({ plugin: entry.pluginName, id }) };
    let instance: object;
    try {
      instance = await (entry.contribution.create as (o: unknown, c: PluginContext) => object | Promise<object>)(options, pluginCtx);
    } catch (err) {
      throw wrapPluginError(err, { ...where, method: 'create' });
    }
    return wrapInstance(instance, where) as Instance<K>;
  }
}

/** Proxies method calls so that thrown errors and rejections carry plugin, kind and method. */
function wrapInstance<T extends object>(instance: T, where: { plugin: string; kind: string; id: string }): T {
  return new Proxy(instance, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      return (...args: unknown[]) => {
        try {
          const result = value.apply(target, args);
          if (result && typeof (result as Promise<unknown>).then === 'function') {
            return (result as Promise<unknown>).catch((err: unknown) => {
              throw wrapPluginError(err, { ...where, method: prop });
            });
          }
          return result;
        } catch (err) {
          throw wrapPluginError(err, { ...where, method: prop });
        }
      };
    },
  });
}
