// Built-in contributions: the `log` deliverer (writes the answer to the gateway log), the `echo` agent and the
// `memory` store.
import { definePlugin, type AgentRunner, type Deliverer, type PluginPackageJson } from '@hookwise/core';
import { createMemoryStore } from '../stores/memory';

export const builtinPlugin = definePlugin({
  package: require('../../package.json') as PluginPackageJson,
  contributes: [
    {
      kind: 'deliverer',
      id: 'log',
      description: 'Writes the agent response to the gateway log (for testing).',
      optionsSchema: { type: 'object', properties: { enabled: { type: 'boolean' } } },
      create(_options, ctx): Deliverer {
        return {
          async deliver(msg) {
            ctx.logger.info(`response for route '${msg.route}' (event ${msg.event || '-'}, delivery ${msg.deliveryId}):\n${msg.text}`, {
              route: msg.route,
              delivery_id: msg.deliveryId,
            });
            return { target: 'log' };
          },
        };
      },
    },
    {
      kind: 'agent',
      id: 'echo',
      description: 'Answers with the rendered prompt; proves the pipeline without a model.',
      optionsSchema: { type: 'object' },
      create(): AgentRunner {
        return {
          async run(task) {
            return { text: task.prompt };
          },
        };
      },
    },
    {
      kind: 'store',
      id: 'memory',
      description: 'Keeps delivery ids, rate windows and jobs inside the gateway process: lost on restart, one gateway only.',
      // No options of its own: a key meant for another backend (path, url) is a mistake worth naming.
      optionsSchema: { type: 'object', additionalProperties: false, properties: {} },
      create: () => createMemoryStore(),
    },
  ],
});
