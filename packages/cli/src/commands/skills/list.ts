// `hookwise skills list`: the skills a route can name, from <config_dir>/skills, skills.dirs and the built-ins.

import { BUILTIN_SKILLS_DIR, DirectorySkillLibrary, skillDirs } from '@hookwise/gateway';
import { dirname, resolve } from 'node:path';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { loadChosen, profileFlag } from '../../profile-choice';
import { renderTable, wideFlag } from '../../text-table';

export interface ListedSkill {
  name: string;
  description: string;
  builtin: boolean;
  dir?: string;
}

export default class SkillsList extends HookwiseCommand {
  static override description =
    "List the skills routes can load: <config_dir>/skills/<name>/SKILL.md (with --profile, the profile's skills/), the skills.dirs of config.yaml, and the built-in skills (a user skill of the same name wins).";
  static override examples = ['<%= config.bin %> skills list', '<%= config.bin %> skills list --wide', '<%= config.bin %> skills list --json'];
  static override enableJsonFlag = true;
  static override flags = { 'config-dir': configDirFlag, profile: profileFlag, wide: wideFlag };

  async run(): Promise<ListedSkill[]> {
    const { flags } = await this.parse(SkillsList);
    let listed: ListedSkill[];
    let problems: string[];
    const choice = this.readsConfigDir(flags);
    try {
      // A profile's skills/ first, as the profile's gateway reads them (skillDirs of its own config dir).
      const { config, configDir } = loadChosen(choice);
      const library = new DirectorySkillLibrary(skillDirs(config, configDir));
      problems = library.problems;
      listed = library.list().map((skill) => ({
        name: skill.name,
        description: skill.description,
        builtin: skill.dir !== undefined && resolve(dirname(skill.dir)) === resolve(BUILTIN_SKILLS_DIR),
        dir: skill.dir,
      }));
    } catch (err) {
      this.fail(err);
    }
    for (const problem of problems) this.warn(problem);
    this.log(
      renderTable(
        ['NAME', 'SOURCE', 'DESCRIPTION'],
        listed.map((s) => [s.name, s.builtin ? 'built-in' : (s.dir ?? ''), s.description]),
        { whole: [0], wide: flags.wide },
      ),
    );
    return listed;
  }
}
