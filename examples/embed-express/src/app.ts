// Hookwise's core inside your own Express app: the webhook handler mounted on a path of yours, next to your own
// endpoints, and the agent's answers delivered into the app itself by a deliverer defined right here.
import express from 'express';
import { createGateway, loadPlugins, validateConfigObject, type Gateway, type GatewayOptions } from '@hookwise/gateway';
import { definePlugin, type DeliveryMessage } from '@hookwise/core';

export interface Answer {
  route: string;
  event: string;
  deliveryId: string;
  text: string;
}

export interface EmbeddedApp {
  app: express.Express;
  gateway: Gateway;
  /** Answers delivered so far, newest last (this app's "destination"). */
  answers: Answer[];
  /** Called with each answer as it is delivered. */
  onAnswer(listener: (answer: Answer) => void): void;
  /** Lets running jobs finish (up to the deadline) and stops the gateway; close your HTTP server yourself. */
  stop(deadlineMs?: number): Promise<void>;
}

export interface EmbeddedAppOptions {
  /** HMAC secret of the `ci` route (X-Webhook-Signature or X-Hub-Signature-256). */
  secret: string;
  /** Where plugins are resolved from and skills would be read; default: the working directory. */
  configDir?: string;
  logger?: GatewayOptions['logger'];
}

export async function createEmbeddedApp(options: EmbeddedAppOptions): Promise<EmbeddedApp> {
  const answers: Answer[] = [];
  const listeners: Array<(answer: Answer) => void> = [];

  // A deliverer of this app: answers land in memory, served by GET /api/answers below.
  const inbox = definePlugin({
    meta: { name: 'embed-express-inbox', version: '1.0.0', api: 2 },
    contributes: [
      {
        kind: 'deliverer',
        id: 'app_inbox',
        optionsSchema: { type: 'object' },
        create: () => ({
          async deliver(msg: DeliveryMessage) {
            const answer = { route: msg.route, event: msg.event, deliveryId: msg.deliveryId, text: msg.text };
            answers.push(answer);
            for (const listener of listeners) listener(answer);
            return { target: `app_inbox#${answers.length}` };
          },
        }),
      },
    ],
  });

  // The same shape as config.yaml, validated (and defaults applied) by the same schema.
  const config = validateConfigObject(
    {
      platforms: {
        webhook: {
          enabled: true,
          extra: {
            rate_limit: 60,
            routes: {
              ci: {
                secret: options.secret,
                events: ['push'],
                prompt: 'Summarise for the team: {head_commit.message} ({repository.full_name})',
                deliver: 'app_inbox',
              },
            },
          },
        },
      },
      agent: { runner: 'echo' }, // replace with command/openai (docs/agents.md)
      store: { backend: 'memory' },
    },
    'embedded config',
  );

  const configDir = options.configDir ?? process.cwd();
  // Only the plugins this app needs; they are ordinary packages resolved from configDir, then the app.
  const plugins = await loadPlugins(['@hookwise/plugin-source-generic', '@hookwise/plugin-source-github'], { configDir });
  const gateway = await createGateway({
    config,
    configDir,
    plugins: [...plugins, { plugin: inbox, source: 'embed-express', options: {} }],
    // A route that pins no source accepts these, by their headers (GitHub's first: its event header is read).
    defaultSources: ['github', 'generic'],
    logger: options.logger,
  });

  const app = express();
  app.disable('x-powered-by');

  // Your own endpoints, with a JSON body parser of their own...
  const api = express.Router();
  api.use(express.json());
  api.get('/answers', (_req, res) => {
    res.json({ answers });
  });
  api.post('/echo', (req, res) => {
    res.json({ you_sent: req.body as unknown });
  });
  app.use('/api', api);

  // ...and the webhooks. No body parser in front: signatures are checked over the exact bytes, which the core
  // reads itself (with the size limit). The handler takes the route name from `/webhooks/<name>` in req.url,
  // which inside a router mounted at /integrations is the part after the mount path.
  const hooks = express.Router();
  hooks.post('/webhooks/:route', (req, res) => gateway.handler(req, res));
  app.use('/integrations', hooks);

  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });

  return {
    app,
    gateway,
    answers,
    onAnswer: (listener) => void listeners.push(listener),
    async stop(deadlineMs = 10_000) {
      await gateway.stop(deadlineMs);
    },
  };
}
