// Built-in contributions: the `log` deliverer (writes the answer to the gateway log) and the `echo` agent.
import { definePlugin, PLUGIN_API_VERSION } from '@hookwise/core';
import type { AgentRunner, Deliverer } from '@hookwise/core';

export const CORE_VERSION = '0.1.0';

export const builtinPlugin = definePlugin({
  meta: { name: '@hookwise/core', version: CORE_VERSION, api: PLUGIN_API_VERSION },
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
  ],
});
