// `hookwise doctor`: every check a gateway's start would make and more (config, secrets, routes, plugins, store,
// agent, gh, platforms' credentials, the running gateway), as a table or --json; exit 1 when one fails.
import { HookwiseCommand } from '../hookwise-command';
import { configDirFlag } from '../config-dir';
import { profileFlag } from '../profile-choice';
import { runDoctor } from '../doctor-checks';
import { renderTable, wideFlag } from '../text-table';
import type { CheckResult } from '../tool-checks';

export interface DoctorReport {
  ok: boolean;
  config_dir: string;
  /** Set when --profile chose one: the checks are of that profile's config over the global one. */
  profile?: string;
  checks: CheckResult[];
}

export default class Doctor extends HookwiseCommand {
  static override description =
    "Check everything a gateway needs: config, secrets and .env, routes, plugins, store, agent runner and its command, gh, each enabled platform's credentials, and whether a gateway runs on this config dir. Prints a table (or --json); exits 1 when a check fails.";
  static override examples = ['<%= config.bin %> doctor', '<%= config.bin %> doctor --json'];
  static override enableJsonFlag = true;
  static override flags = { 'config-dir': configDirFlag, profile: profileFlag, wide: wideFlag };

  async run(): Promise<DoctorReport> {
    const { flags } = await this.parse(Doctor);
    const choice = this.readsConfigDir(flags);
    let checks: CheckResult[];
    try {
      checks = await runDoctor(choice);
    } catch (err) {
      this.fail(err);
    }
    const report: DoctorReport = {
      ok: !checks.some((c) => c.status === 'fail'),
      config_dir: choice.rootDir,
      ...(choice.profile ? { profile: choice.profile } : {}),
      checks,
    };
    const rows = checks.map((c) => [c.status.toUpperCase(), c.check, c.fix ? `${c.detail}. Fix: ${c.fix}` : c.detail]);
    this.log(`Config dir: ${choice.rootDir}`);
    if (choice.profile) this.log(`Profile: ${choice.profile} (${choice.dir})`);
    this.log(renderTable(['STATUS', 'CHECK', 'DETAIL'], rows, { whole: [1], wrap: [2], wide: flags.wide }));
    for (const c of checks.filter((check) => check.excerpt?.length)) this.log(`\n${c.check}:\n${c.excerpt!.map((line) => `  ${line}`).join('\n')}`);
    const failed = checks.filter((c) => c.status === 'fail').length;
    const warned = checks.filter((c) => c.status === 'warn').length;
    this.log(`\n${failed ? `${failed} problem(s) stop the gateway` : 'Nothing stops the gateway'}${warned ? `; ${warned} warning(s)` : ''}.`);
    if (!report.ok) {
      if (this.jsonEnabled()) this.logJson(report);
      this.exit(1);
    }
    return report;
  }
}
