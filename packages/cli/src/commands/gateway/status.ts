// `hookwise gateway status`: whether a gateway runs on this config dir (its gateway.run.json) and answers /health;
// exit 0 only then, so that it serves as a container's or a monitor's health check.
import { readRunFile } from '@hookwise/gateway';
import { HookwiseCommand } from '../../hookwise-command';
import { configDirFlag } from '../../config-dir';

const HEALTH_TIMEOUT_MS = 3000;

export interface GatewayStatus {
  running: boolean;
  healthy: boolean;
  pid?: number;
  url?: string;
  /** /health's status code, or why it did not answer. */
  health?: number | string;
}

export default class GatewayStatusCommand extends HookwiseCommand {
  static override description =
    "Say whether a gateway runs on this config dir (from the gateway.run.json that `gateway run` writes) and answers GET /health; exits 0 only when it does (the container image's health check).";
  static override examples = ['<%= config.bin %> gateway status', '<%= config.bin %> gateway status --json'];
  static override enableJsonFlag = true;
  static override flags = { 'config-dir': configDirFlag };

  async run(): Promise<GatewayStatus> {
    const { flags } = await this.parse(GatewayStatusCommand);
    // No --profile: the one gateway of a config dir serves every profile, and its run file is the config dir's.
    const { rootDir } = this.readsConfigDir({ 'config-dir': flags['config-dir'] });
    const running = readRunFile(rootDir);
    let status: GatewayStatus;
    if (!running) {
      status = { running: false, healthy: false };
      this.log(`No gateway runs on this config dir, ${this.whereRead('').trim()} (start one: hookwise gateway run).`);
    } else {
      let health: number | string;
      try {
        health = (await fetch(`${running.url}/health`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) })).status;
      } catch (err) {
        health = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      }
      status = { running: true, healthy: health === 200, pid: running.pid, url: running.url, health };
      this.log(`Gateway running (pid ${running.pid}) at ${running.url}: ${health === 200 ? 'healthy' : `GET /health answered ${health}`}.`);
    }
    if (!status.healthy) {
      if (this.jsonEnabled()) this.logJson(status);
      this.exit(1);
    }
    return status;
  }
}
