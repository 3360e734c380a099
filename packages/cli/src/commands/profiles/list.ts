// `hookwise profiles list`: the default profile (the config dir's own routes) and each profile under profiles/,
// with how many routes each has and where its files are.
import { errorMessage } from '@hookwise/core';
import { listProfiles } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { chooseProfile, loadChosen, profileName } from '../../profile-choice';
import { listRoutes } from '../../route-listing';
import { renderTable, wideFlag } from '../../text-table';

export interface ListedProfile {
  name: string;
  /** Static routes and subscriptions; null when its config does not load (`problem` says why). */
  routes: number | null;
  dir: string;
  problem?: string;
}

export default class ProfilesList extends HookwiseCommand {
  static override description =
    "List the profiles of the config dir: 'default' (the config dir's own routes, served at /webhooks/<route>) first, then each one under profiles/ (served at /p/<name>/webhooks/<route>), with its number of routes (static and subscriptions) and its folder.";
  static override examples = ['<%= config.bin %> profiles list', '<%= config.bin %> profiles list --json'];
  static override enableJsonFlag = true;
  static override flags = { 'config-dir': configDirFlag, wide: wideFlag };

  async run(): Promise<ListedProfile[]> {
    const { flags } = await this.parse(ProfilesList);
    const { rootDir } = this.readsConfigDir({ 'config-dir': flags['config-dir'] });
    let names: Array<string | undefined>;
    try {
      names = [undefined, ...listProfiles(rootDir)];
    } catch (err) {
      this.fail(err);
    }
    const listed = names.map((profile): ListedProfile => {
      const choice = chooseProfile(rootDir, profile);
      try {
        return { name: profileName(choice), routes: listRoutes(loadChosen(choice)).length, dir: choice.dir };
      } catch (err) {
        // One profile's broken config.yaml must not hide the others.
        return { name: profileName(choice), routes: null, dir: choice.dir, problem: errorMessage(err) };
      }
    });
    this.log(
      renderTable(
        ['NAME', 'ROUTES', 'DIR'],
        listed.map((p) => [p.name, p.routes === null ? '?' : String(p.routes), p.dir]),
        { whole: [0, 2], wide: flags.wide },
      ),
    );
    for (const p of listed) if (p.problem) this.warn(`profile '${p.name}': ${p.problem}`);
    if (listed.length === 1) this.log(`\nNo profiles yet: create one with \`hookwise profiles add <name>\`.`);
    return listed;
  }
}
