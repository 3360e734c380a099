// Runs the embedded app: `CI_WEBHOOK_SECRET=... PORT=3000 node dist/main.js` (after compiling), or with ts-node.
import { createEmbeddedApp } from './app';

async function main(): Promise<void> {
  const secret = process.env.CI_WEBHOOK_SECRET;
  if (!secret) throw new Error('CI_WEBHOOK_SECRET is not set: export it (the same secret the sender signs with)');
  const embedded = await createEmbeddedApp({ secret });
  const port = Number(process.env.PORT ?? 3000);
  const server = embedded.app.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}; webhooks at /integrations/webhooks/ci`));
  process.once('SIGTERM', () => {
    server.close();
    void embedded.stop().then(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
