import type { Deliverer, HookwisePlugin, PluginContext } from '@hookwise/core';

export interface FileDropOptions {
  /** Directory for answer files; relative to the config dir. Default "answers". */
  dir: string;
  /** Start each file with an HTML comment naming route, event and delivery id. Default true. */
  header: boolean;
}

export function createFileDropDeliverer(options: FileDropOptions, ctx: PluginContext): Deliverer;
declare const plugin: HookwisePlugin;
export default plugin;
