// `hookwise routes list`: every route the gateway serves (static routes of config.yaml and subscriptions) with its
// sender style, events, destination and where its secret comes from; never a secret.
import { loadConfig } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag, configDirFrom } from '../../config-dir';
import { describeSecret, listRoutes, type ListedRoute } from '../../route-listing';
import { renderTable } from '../../text-table';

export default class RoutesList extends HookwiseCommand {
  static override description =
    'List every route the gateway serves: the static routes of config.yaml and the subscriptions, with their source (sender style), events, destination and where their secret comes from (route, subscription or global; never the secret).';
  static override examples = ['<%= config.bin %> routes list', '<%= config.bin %> routes list --json'];
  static override enableJsonFlag = true;
  static override flags = { 'config-dir': configDirFlag };

  async run(): Promise<Array<Omit<ListedRoute, 'route'>>> {
    const { flags } = await this.parse(RoutesList);
    let routes: ListedRoute[];
    try {
      const { config, configDir } = loadConfig({ configDir: configDirFrom(flags['config-dir']) });
      routes = listRoutes(config, configDir);
    } catch (err) {
      this.fail(err);
    }
    // The Route objects carry the secrets: they stay out of the output.
    const shown = routes.map(({ route: _route, ...rest }) => rest);
    if (!shown.length) {
      this.log('No routes yet: add one under platforms.webhook.extra.routes in config.yaml, or run: hookwise webhook subscribe <name> --events <types>');
      return shown;
    }
    const rows = shown.map((r) => [r.name, r.origin, r.status, r.source, r.events.length ? r.events.join(',') : 'all', r.deliver, describeSecret(r), r.url]);
    this.log(renderTable(['NAME', 'ORIGIN', 'STATUS', 'SOURCE', 'EVENTS', 'DELIVER', 'SECRET', 'URL'], rows, { whole: [0, 7] }));
    for (const r of shown) for (const problem of r.problems) this.warn(problem);
    return shown;
  }
}
