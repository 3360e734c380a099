// What a profile's folder holds when `profiles add` makes it, and what stays behind when `profiles remove` deletes
// it (its store and its agents' data dir may lie outside the folder).
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { LoadedConfig } from '@hookwise/gateway';

/**
 * The starter config.yaml: one route, off until it has a secret (a route without one would stop the gateway), and
 * what this file inherits from the config dir's config.yaml (mergeProfileConfig of the gateway's config/profiles.ts).
 */
export function starterConfig(name: string): string {
  return `# Profile '${name}': a set of routes with their own secrets, platforms, skills, agent defaults and budgets.
# Its routes are served at /p/${name}/webhooks/<route>; the config dir's own routes stay at /webhooks/<route>.
#
# This file lies on top of the config dir's config.yaml (two folders up):
#   inherited from there:  platforms (a platform block set here replaces that platform's whole block: one bot's
#                          token never mixes with another's chat), agent (key by key; budget as a whole), retry,
#                          skills.dirs, notify
#   never inherited:       its routes and webhook secrets (platforms.webhook.extra.routes, secret, secrets): a
#                          signature made for one profile is not valid for another's route
#   only set there:        store, log, admin, metrics, tracing, plugins, mcp, platforms.webhook.extra.port and host
#                          (the whole gateway's; refused here)
# This profile's own: .env (over the gateway's environment), webhook_subscriptions.json (hookwise webhook
# subscribe --profile ${name}), skills/, and its store (a SQLite file or Redis prefix of its own).
platforms:
  webhook:
    extra:
      # A secret for this profile's routes that have none of their own: put WEBHOOK_SECRET=<random> in this
      # profile's .env (hookwise gateway setup --profile ${name} does both) and uncomment the line below.
      # secret: \${WEBHOOK_SECRET}
      routes:
        example:
          # Off until it has a secret: set one above or here (secret: \${EXAMPLE_SECRET}, with the value in .env),
          # then remove the next line and restart the gateway.
          enabled: false
          events:
            - push
          prompt: 'Summarise this push to {repository.full_name}: {head_commit.message}'
          deliver: log
`;
}

/** Makes the folder: config.yaml, an empty .env only its owner reads (it holds the profile's keys), skills/. */
export function createProfileFolder(dir: string, name: string): void {
  mkdirSync(join(dir, 'skills'), { recursive: true });
  writeFileSync(join(dir, 'config.yaml'), starterConfig(name), { flag: 'wx' });
  writeFileSync(join(dir, '.env'), '', { mode: 0o600, flag: 'wx' });
  // The umask may have taken bits away, never added them; chmod says exactly what the file is.
  chmodSync(join(dir, '.env'), 0o600);
}

/** What a profile keeps outside its folder: one sentence each, with how to remove it. */
export function leftOutside(loaded: LoadedConfig, dir: string): string[] {
  const left: string[] = [];
  const store = loaded.config.store as { backend: string; path?: unknown; prefix?: unknown };
  const inside = (path: string) => !relative(resolve(dir), resolve(path)).startsWith('..');
  if (store.backend === 'sqlite') {
    const file = resolve(loaded.configDir, typeof store.path === 'string' ? store.path : 'hookwise.sqlite');
    if (!inside(file)) left.push(`its store file ${file} is left: remove it with \`rm -f ${file} ${file}-wal ${file}-shm\``);
  } else if (store.backend === 'redis') {
    const prefix = typeof store.prefix === 'string' ? store.prefix : 'hookwise';
    left.push(`its Redis keys under '${prefix}:' are left: remove them with \`redis-cli --scan --pattern '${prefix}:*' | xargs redis-cli del\``);
  } else if (store.backend !== 'memory') {
    left.push(`its records in store '${store.backend}' are left: see that store's documentation to remove them`);
  }
  const data = loaded.env.HOOKWISE_DATA_DIR;
  // Made by the profile's first agent run with a private home: named only once there is one.
  if (data && !inside(data) && existsSync(data)) left.push(`its agents' data dir ${data} is left: remove it with \`rm -rf ${data}\``);
  return left;
}
