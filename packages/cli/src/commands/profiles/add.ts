// `hookwise profiles add <name>`: makes <config_dir>/profiles/<name>/ with a commented starter config.yaml, an
// empty .env (mode 0600) and skills/, and says where its routes are served and what to do next.
import { existsSync } from 'node:fs';
import { Args } from '@oclif/core';
import { HookwiseConfigError } from '@hookwise/core';
import { loadConfig, profileDir } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { DEFAULT_PROFILE } from '@hookwise/gateway';
import { createProfileFolder } from '../../profile-folder';
import { publicBaseUrl, webhookPath } from '../../webhook-url';

export interface AddedProfile {
  name: string;
  dir: string;
  /** Where its routes are served, `<route>` standing for a route's name. */
  url_prefix: string;
}

export default class ProfilesAdd extends HookwiseCommand {
  static override description =
    'Create a profile: <config_dir>/profiles/<name>/ with a commented starter config.yaml (one route, off until it has a secret), an empty .env (mode 0600) and skills/. Its routes are served at /p/<name>/webhooks/<route>; every command takes --profile <name> to act on it.';
  static override examples = ['<%= config.bin %> profiles add acme'];
  static override enableJsonFlag = true;
  static override args = {
    name: Args.string({ description: "The profile's name: lower-case letters, digits, '-' and '_' (it is part of its URLs).", required: true }),
  };
  static override flags = { 'config-dir': configDirFlag };

  async run(): Promise<AddedProfile> {
    const { args, flags } = await this.parse(ProfilesAdd);
    const { name } = args;
    const { rootDir } = this.readsConfigDir({ 'config-dir': flags['config-dir'] });
    if (name === DEFAULT_PROFILE) this.fail(`'${DEFAULT_PROFILE}' names the config dir's own routes: choose another name for a profile`);
    let dir: string;
    try {
      dir = profileDir(rootDir, name);
    } catch (err) {
      // The name's problem is the whole message here ("no profile 'x'" is what a reader of one is told).
      this.fail(err instanceof HookwiseConfigError ? err.problems.join('; ') : err);
    }
    if (existsSync(dir))
      this.fail(`profile '${name}' exists already (${dir}): see \`hookwise profiles list\`; \`hookwise profiles remove ${name}\` deletes it`);
    try {
      createProfileFolder(dir, name);
    } catch (err) {
      this.fail(err);
    }
    const added = { name, dir, url_prefix: `${this.baseUrl(rootDir)}${webhookPath('', name)}<route>` };
    this.log(`Profile '${name}' created in ${dir}.`);
    this.log(`  Webhook URLs: ${added.url_prefix}`);
    this.log('');
    this.log('Next:');
    this.log(`  1. Edit ${dir}/config.yaml: its routes, and platforms or agent settings of its own (the comments say what it inherits).`);
    this.log(`  2. Put its secrets and tokens in ${dir}/.env, or add a route with its own secret:`);
    this.log(`     hookwise webhook subscribe <name> --events <types> --profile ${name}`);
    this.log(`  3. Check it: hookwise doctor --profile ${name}; (re)start the gateway (hookwise gateway run) to serve it.`);
    return added;
  }

  /** The gateway's public address from the config dir's config.yaml; the path alone when that does not load. */
  private baseUrl(rootDir: string): string {
    try {
      return publicBaseUrl(loadConfig({ configDir: rootDir }).config);
    } catch {
      return '';
    }
  }
}
