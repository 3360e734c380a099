// `hookwise profiles remove <name>`: deletes a profile's folder after a confirmation (--yes skips it; without a
// terminal and without --yes it refuses: CI has no one to answer), and names what it leaves (its store, data dir).
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { Args, Flags } from '@oclif/core';
import { errorMessage } from '@hookwise/core';
import { readRunFile } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';
import { leftOutside } from '../../profile-folder';
import { loadChosen } from '../../profile-choice';

export interface RemovedProfile {
  name: string;
  dir: string;
  removed: boolean;
  /** What stays outside the folder, one sentence each with how to remove it. */
  left: string[];
}

export default class ProfilesRemove extends HookwiseCommand {
  static override description =
    "Delete a profile's folder (<config_dir>/profiles/<name>: its config.yaml, .env, subscriptions, skills and trials) after a confirmation; --yes skips it. Its store records outside the folder (a Redis prefix, a SQLite file elsewhere) and its agents' data dir are left, and named with how to remove them.";
  static override examples = ['<%= config.bin %> profiles remove acme', '<%= config.bin %> profiles remove acme --yes'];
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'The profile to remove.', required: true }) };
  static override flags = {
    'config-dir': configDirFlag,
    yes: Flags.boolean({ char: 'y', description: 'Do not ask for a confirmation.', default: false }),
  };

  async run(): Promise<RemovedProfile> {
    const { args, flags } = await this.parse(ProfilesRemove);
    const { name } = args;
    const choice = this.readsConfigDir({ 'config-dir': flags['config-dir'], profile: name });
    if (!choice.profile) this.fail(`'${name}' is the config dir itself, not a profile: nothing to remove`);
    if (!flags.yes) {
      if (process.stdin.isTTY !== true) this.fail(`pass --yes to remove profile '${name}' without a prompt`);
      if (!(await this.confirmed(`Remove profile '${name}' and everything in ${choice.dir}? [y/N] `))) {
        this.log('Nothing removed.');
        return { name, dir: choice.dir, removed: false, left: [] };
      }
    }
    let left: string[];
    try {
      left = leftOutside(loadChosen(choice), choice.dir);
    } catch (err) {
      // A config that does not load still goes; where its store was cannot be said then.
      left = [`where its store kept its records could not be read (${errorMessage(err)}): check the store for records of profile '${name}'`];
    }
    try {
      rmSync(choice.dir, { recursive: true, force: true });
    } catch (err) {
      this.fail(err);
    }
    this.log(`Profile '${name}' removed (${choice.dir}).`);
    for (const line of left) this.log(`  ${line[0].toUpperCase()}${line.slice(1)}.`);
    if (readRunFile(choice.rootDir)) this.log(`A gateway runs on this config dir: restart it so that it stops serving /p/${name}/.`);
    return { name, dir: choice.dir, removed: true, left };
  }

  private async confirmed(question: string): Promise<boolean> {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    try {
      return /^y(es)?$/i.test((await rl.question(question)).trim());
    } finally {
      rl.close();
    }
  }
}
