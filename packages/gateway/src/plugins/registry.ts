// Holds every contribution by kind and id, validates options against their schemas and creates wrapped instances.
import type { default as Ajv } from 'ajv';
import type { Logger } from 'winston';
import type { AgentRunner, Deliverer, MemoKV, ProgressKV, Source, Store } from '@hookwise/core';
import { HookwiseConfigError, wrapPluginError } from '@hookwise/core';
import type { LoadedPlugin } from './loader';
import type { Contribution, ContributionKind, PluginContext } from '@hookwise/core';
import { describeSchemaError } from '../config/load';
import { createAjv } from '../config/lazy-ajv';

export interface RegisteredContribution {
  contribution: Contribution;
  pluginName: string;
  pluginVersion: string;
  baseOptions: Record<string, unknown>;
}

type Instance<K extends ContributionKind> = K extends 'source' ? Source : K extends 'deliverer' ? Deliverer : K extends 'store' ? Store : AgentRunner;

export interface CreateContext {
  logger: Logger;
  configDir: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  redact(secret: string | undefined): void;
  isSecret?(value: string): boolean;
  scrub?(text: string): string;
  /** The store's delivery progress (PluginContext.progress). */
  progress?: ProgressKV;
  /** The store's memos (PluginContext.memos). */
  memos?: MemoKV;
}

// Created on the first options schema: plugin schemas are not ours, so ajv still checks them against the
// meta-schema.
let ajv: Ajv | undefined;

export class PluginRegistry {
  private readonly entries = new Map<string, RegisteredContribution>();
  /** `kind:alias` -> `kind:id`, for the SPEC's stand-in names (`platform_01`, `codehost_a`, ...). */
  private readonly aliases = new Map<string, string>();

  /** Registers every contribution; duplicate `kind:id` pairs are collected as problems. */
  constructor(plugins: readonly LoadedPlugin[]) {
    const problems: string[] = [];
    for (const { plugin, options } of plugins) {
      for (const contribution of plugin.contributes) {
        const key = `${contribution.kind}:${contribution.id}`;
        const existing = this.get(contribution.kind, contribution.id);
        if (existing) {
          problems.push(
            `${contribution.kind} '${contribution.id}' is contributed twice: by ${existing.pluginName} and by ${plugin.meta.name}; remove one of them from plugins:`,
          );
          continue;
        }
        this.entries.set(key, { contribution, pluginName: plugin.meta.name, pluginVersion: plugin.meta.version, baseOptions: options });
        for (const alias of contribution.aliases ?? []) this.aliases.set(`${contribution.kind}:${alias}`, key);
      }
    }
    if (problems.length) throw new HookwiseConfigError(problems, 'plugins conflict', 'HW_E_PLUGIN_LOAD');
  }

  /** The contribution by its id or one of its aliases. */
  get(kind: ContributionKind, id: string): RegisteredContribution | undefined {
    const key = `${kind}:${id}`;
    return this.entries.get(key) ?? this.entries.get(this.aliases.get(key) ?? '');
  }

  /** The real id for an id or alias (unknown names come back unchanged). */
  canonicalId(kind: ContributionKind, id: string): string {
    return this.get(kind, id)?.contribution.id ?? id;
  }

  /** Every name a contribution answers to: its id, then its aliases. */
  namesOf(kind: ContributionKind, id: string): string[] {
    const entry = this.get(kind, id);
    return entry ? [entry.contribution.id, ...(entry.contribution.aliases ?? [])] : [id];
  }

  /** Known ids for an error message: `telegram (platform_01), slack (platform_03), ...`. */
  describeIds(kind: ContributionKind): string {
    return this.list(kind)
      .map((e) => (e.contribution.aliases?.length ? `${e.contribution.id} (${e.contribution.aliases.join(', ')})` : e.contribution.id))
      .sort()
      .join(', ');
  }

  ids(kind: ContributionKind): string[] {
    return [...this.entries.values()].filter((e) => e.contribution.kind === kind).map((e) => e.contribution.id);
  }

  list(kind?: ContributionKind): RegisteredContribution[] {
    return [...this.entries.values()].filter((e) => !kind || e.contribution.kind === kind);
  }

  /** Validates options (defaults applied); returns the problems, each naming `where` (a config key path). */
  validateOptions(
    kind: ContributionKind,
    id: string,
    options: Record<string, unknown>,
    where: string,
  ): { options: Record<string, unknown>; problems: string[] } {
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

/**
 * Proxies method calls so that thrown errors and rejections carry plugin, kind and method. Each method's wrapper
 * is made once and reused while the instance keeps the same function under that name: the pipeline reads a
 * source's methods several times per request, and a new closure per read was garbage on the hot path.
 */
function wrapInstance<T extends object>(instance: T, where: { plugin: string; kind: string; id: string }): T {
  const wrappers = new Map<string, { value: (...args: unknown[]) => unknown; wrapper: (...args: unknown[]) => unknown }>();
  return new Proxy(instance, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      const made = wrappers.get(prop);
      if (made?.value === value) return made.wrapper;
      const wrapper = (...args: unknown[]): unknown => {
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
      wrappers.set(prop, { value: value as (...args: unknown[]) => unknown, wrapper });
      return wrapper;
    },
  });
}
