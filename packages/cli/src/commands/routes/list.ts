// `hookwise routes list`: every route the gateway serves (static routes of config.yaml and subscriptions) with its
// sender style, events, destination and where its secret comes from (never a secret), and what its budget counts
// now: agent runs this hour and tokens today, against the route's `budget:` when it has one.
import { againstLimit, type UsageReport } from '@hookwise/gateway';
import { errorMessage, type RouteBudget } from '@hookwise/core';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { loadChosen, profileArg, profileFlag, type ProfileChoice } from '../../profile-choice';
import { withExistingDeliveries } from '../../delivery-access';
import { describeSecret, listRoutes, type ListedRoute } from '../../route-listing';
import { renderTable, wideFlag } from '../../text-table';

/** A route as --json prints it: no Route object (it holds the secrets), its budget and counters in snake_case. */
type ShownRoute = Omit<ListedRoute, 'route'> & {
  budget?: { runs_per_hour?: number; tokens_per_day?: number; when_exceeded: RouteBudget['whenExceeded'] };
  runs_this_hour?: number;
  tokens_today?: number;
};

export default class RoutesList extends HookwiseCommand {
  static override description =
    "List every route the gateway serves: the static routes of config.yaml and the subscriptions, with their source (sender style), events, destination and where their secret comes from (route, subscription or global; never the secret), and the agent runs of this clock hour and tokens of this UTC day (from the running gateway's admin API, else the store's budget counters) against the route's budget ('12/20').";
  static override examples = ['<%= config.bin %> routes list', '<%= config.bin %> routes list --json'];
  static override enableJsonFlag = true;
  static override flags = { 'config-dir': configDirFlag, profile: profileFlag, wide: wideFlag };

  async run(): Promise<ShownRoute[]> {
    const { flags } = await this.parse(RoutesList);
    let routes: ListedRoute[];
    const choice = this.readsConfigDir(flags);
    try {
      routes = listRoutes(loadChosen(choice));
    } catch (err) {
      this.fail(err);
    }
    if (!routes.length) {
      this.logNothingFound(
        'No routes yet',
        `Add one under platforms.webhook.extra.routes in ${choice.profile ? "the profile's " : ''}config.yaml, or run: hookwise webhook subscribe <name> --events <types>${profileArg(choice)}`,
      );
      return [];
    }
    const usage = await this.counted(choice);
    // The Route objects carry the secrets: they stay out of the output.
    const shown = routes.map(({ route, ...rest }): ShownRoute => {
      const budget = route?.budget;
      const counted = usage?.routes.find((r) => r.route === rest.name);
      return {
        ...rest,
        ...(budget ? { budget: { runs_per_hour: budget.runsPerHour, tokens_per_day: budget.tokensPerDay, when_exceeded: budget.whenExceeded } } : {}),
        ...(counted?.runsThisHour !== undefined ? { runs_this_hour: counted.runsThisHour, tokens_today: counted.tokensToday } : {}),
      };
    });
    const rows = shown.map((r) => [
      r.name,
      r.origin,
      r.status,
      r.source,
      r.events.length ? r.events.join(',') : 'all',
      r.deliver,
      describeSecret(r),
      againstLimit(r.runs_this_hour, r.budget?.runs_per_hour),
      againstLimit(r.tokens_today, r.budget?.tokens_per_day),
      r.url,
    ]);
    this.log(
      renderTable(['NAME', 'ORIGIN', 'STATUS', 'SOURCE', 'EVENTS', 'DELIVER', 'SECRET', 'RUNS THIS HOUR', 'TOKENS TODAY', 'URL'], rows, {
        whole: [0, 9],
        // The budget counters (deliveries usage has them) and where a route is defined go first when it does not fit.
        drop: [8, 7, 1],
        wide: flags.wide,
      }),
    );
    for (const r of shown) for (const problem of r.problems) this.warn(problem);
    return shown;
  }

  /**
   * The budget counters, from the running gateway or the store; undefined when there are none to read (a memory
   * store with no gateway running, a store never opened) or they cannot be read (said on stderr: the routes are
   * listed all the same).
   */
  private async counted(choice: ProfileChoice): Promise<UsageReport | undefined> {
    try {
      return await withExistingDeliveries(choice, (deliveries) => deliveries.usage(Date.now(), undefined, { stored: false }));
    } catch (err) {
      this.warn(`runs this hour and tokens today not shown: ${errorMessage(err)}`);
      return undefined;
    }
  }
}
