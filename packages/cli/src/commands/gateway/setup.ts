// `hookwise gateway setup`: enables the webhook adapter and sets the port and the global HMAC secret.
import { createInterface } from 'node:readline/promises';
import { Flags } from '@oclif/core';
import { DEFAULT_PORT, readDotenv } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { describeProfile, profileArg, profileFlag } from '../../profile-choice';
import { applySetup, generateSecret, readExistingSettings } from '../../setup-config';

export default class GatewaySetup extends HookwiseCommand {
  static override description =
    "Enable the webhook adapter and set its port and global HMAC secret (interactive; --yes for scripts). Keeps the rest of config.yaml and its comments. With --profile: the profile's own webhook secret, in its folder (the listener stays the config dir's).";
  static override examples = [
    '<%= config.bin %> gateway setup',
    '<%= config.bin %> gateway setup --yes --port 9000',
    '<%= config.bin %> gateway setup --yes --secret "$MY_SECRET"',
    '<%= config.bin %> gateway setup --yes --profile acme',
  ];
  static override flags = {
    'config-dir': configDirFlag,
    profile: profileFlag,
    port: Flags.integer({ description: 'Port to listen on.', min: 1, max: 65535 }),
    host: Flags.string({ description: 'Interface to bind (0.0.0.0 for all, 127.0.0.1 for local only).' }),
    secret: Flags.string({ description: 'Global HMAC secret (default: keep the existing one, or generate one).' }),
    yes: Flags.boolean({ char: 'y', description: 'Do not ask; use the flags, existing values and defaults.', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(GatewaySetup);
    const choice = this.readsConfigDir(flags);
    const configDir = choice.dir;
    const forProfile = choice.profile !== undefined;
    if (forProfile && (flags.port !== undefined || flags.host !== undefined))
      this.fail(`--port and --host are the whole gateway's listener: run \`hookwise gateway setup\` without --profile for them`);
    const existing = readExistingSettings(configDir);
    let port = flags.port ?? existing.port ?? DEFAULT_PORT;
    let host = flags.host ?? existing.host;
    let secret = flags.secret;
    const interactive = !flags.yes && process.stdin.isTTY === true;
    if (interactive) {
      const rl = createInterface({ input: process.stdin, output: process.stdout });
      try {
        if (!forProfile) {
          const portAnswer = (await rl.question(`Port [${port}]: `)).trim();
          if (portAnswer) port = Number(portAnswer);
          const hostAnswer = (await rl.question(`Bind address (0.0.0.0 = all interfaces, 127.0.0.1 = this machine only) [${host ?? '0.0.0.0'}]: `)).trim();
          if (hostAnswer) host = hostAnswer;
        }
        if (!secret) {
          const offer = existing.hasSecret ? 'keep the existing one' : 'generate one';
          const secretAnswer = (await rl.question(`Global HMAC secret [Enter: ${offer}]: `)).trim();
          if (secretAnswer) secret = secretAnswer;
        }
      } finally {
        rl.close();
      }
    }
    if (!Number.isInteger(port) || port < 1 || port > 65535) this.error(`port '${port}' is not a port number (1-65535)`, { exit: 1 });
    let secretNote = 'set';
    if (!secret) {
      if (existing.hasSecret) {
        secret = readDotenv(configDir).WEBHOOK_SECRET || (forProfile ? undefined : process.env.WEBHOOK_SECRET) || undefined;
        secretNote = 'kept';
      }
      if (!secret) {
        secret = generateSecret();
        secretNote = 'generated';
      }
    }
    if (secret!.length < 16) this.warn('the secret is shorter than 16 characters; a long random secret is much safer');
    const { configFile, envFile } = applySetup(configDir, forProfile ? { secret: secret! } : { port, host, secret: secret! });
    if (forProfile) this.log(`Webhook secret of ${describeProfile(choice)} set; the listener is the config dir's.`);
    else this.log(`Webhook adapter enabled on port ${port}${host ? ` (bound to ${host})` : ''}.`);
    this.log(`Config written to ${configFile}.`);
    this.log(`${forProfile ? "The profile's" : 'Global'} HMAC secret ${secretNote}: stored in ${envFile} as WEBHOOK_SECRET (mode 0600).`);
    if (secretNote === 'generated') this.log(`Secret (shown once; configure your senders with it): ${secret}`);
    const which = forProfile ? "the profile's config.yaml" : 'config.yaml';
    this.log(`Next: add a route and start the gateway (hookwise gateway run). Routes in ${which} without a secret of their`);
    this.log(`own use this secret; a subscription (hookwise webhook subscribe <name>${profileArg(choice)}) gets its own secret instead.`);
  }
}
