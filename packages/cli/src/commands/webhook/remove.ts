// `hookwise webhook remove <name>`: deletes a dynamic subscription; the running gateway answers 404 for it next.
import { Args } from '@oclif/core';
import { HookwiseError } from '@hookwise/core';
import { staticRoutes, updateSubscriptions } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { loadChosen, profileFlag } from '../../profile-choice';
import { webhookPath } from '../../webhook-url';
import { channelError, channelRequest, jobChannelFrom } from '../../job-channel-client';

export default class WebhookRemove extends HookwiseCommand {
  static override description = 'Delete a dynamic webhook subscription (static routes live in config.yaml and are not touched).';
  static override examples = ['<%= config.bin %> webhook remove ci'];
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'Name of the subscription.', required: true }) };
  static override flags = { 'config-dir': configDirFlag, profile: profileFlag };

  async run(): Promise<{ name: string; removed: true }> {
    const { args, flags } = await this.parse(WebhookRemove);
    const { name } = args;
    // Inside an agent run: only what this run subscribed can be removed, by the gateway's job channel.
    const channel = jobChannelFrom();
    if (channel) {
      const answer = await channelRequest(channel, 'DELETE', `/subscriptions/${encodeURIComponent(name)}`).catch((err: unknown) => this.fail(err));
      if (answer.status >= 300) this.fail(new Error(channelError(answer)));
      this.log(`Subscription '${name}' removed through the gateway's job channel.`);
      return { name, removed: true };
    }
    const choice = this.readsConfigDir(flags);
    try {
      const { config, configDir, configFile } = loadChosen(choice);
      const isStatic = staticRoutes(config).has(name) || Object.hasOwn(config.platforms.webhook.extra.routes ?? {}, name);
      await updateSubscriptions(configDir, (entries) => {
        if (Object.hasOwn(entries, name)) {
          delete entries[name];
          return;
        }
        if (isStatic) {
          throw new HookwiseError(
            'HW_E_SUBSCRIPTIONS',
            `'${name}' is a static route in ${configFile ?? 'config.yaml'}, not a subscription: remove platforms.webhook.extra.routes.${name} there and restart the gateway`,
          );
        }
        throw new HookwiseError(
          'HW_E_SUBSCRIPTIONS',
          `no subscription named '${name}' ${this.whereRead('').trim()}: see \`hookwise webhook list\` for the names`,
        );
      });
    } catch (err) {
      this.fail(err);
    }
    this.log(`Subscription '${name}' removed; the gateway answers 404 for ${webhookPath(name, choice.profile)} from the next request on.`);
    return { name, removed: true };
  }
}
