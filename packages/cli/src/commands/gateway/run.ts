// `hookwise gateway run`: the gateway in the foreground, logs to stdout.
import { Flags } from '@oclif/core';
import { HookwiseCommand } from '../../hookwise-command';
import type { LoadedConfig, Route } from '@hookwise/gateway';
import { configDirFlag, configDirFrom } from '../../config-dir';
import { distributionOptions } from '../../distribution';
import { checkAgentCommands, checkGithubClient, warningLine } from '../../tool-checks';

export default class GatewayRun extends HookwiseCommand {
  static override description = 'Run the gateway in the foreground and show its logs (Ctrl-C or SIGTERM stops it gracefully).';
  static override examples = ['<%= config.bin %> gateway run', '<%= config.bin %> gateway run --port 9000 --log-format json'];
  static override flags = {
    'config-dir': configDirFlag,
    port: Flags.integer({ description: 'Port to listen on (overrides config and WEBHOOK_PORT).', min: 0, max: 65535 }),
    host: Flags.string({ description: 'Interface to bind, e.g. 127.0.0.1 or 0.0.0.0.' }),
    'log-level': Flags.string({ description: 'Log level.', options: ['error', 'warn', 'info', 'debug'] }),
    'log-format': Flags.string({ description: 'Log format.', options: ['pretty', 'json'] }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(GatewayRun);
    try {
      // Loaded here, not at the top: oclif reads every command's metadata, and the server pulls in all plugins.
      const { runGateway } = await import('@hookwise/server');
      const running = await runGateway({
        ...(await distributionOptions()),
        configDir: configDirFrom(flags['config-dir']),
        port: flags.port,
        host: flags.host,
        logLevel: flags['log-level'],
        logFormat: flags['log-format'] as 'pretty' | 'json' | undefined,
      });
      // After the listening line, in the background: a missing agent CLI or gh only warns (the gateway serves
      // and queues), but is named now instead of at the first event's dead letter.
      void this.warnAboutTools(running.loaded, running.gateway.routes.all(), running.gateway.logger);
    } catch (err) {
      this.fail(err);
    }
    // Stay alive: the HTTP server keeps the event loop busy until a signal stops it.
  }

  private async warnAboutTools(loaded: LoadedConfig, routes: Route[], logger: { warn(line: string): unknown; debug(line: string): unknown }): Promise<void> {
    const options = { config: loaded.config, routes, configDir: loaded.configDir, env: loaded.env };
    try {
      const results = [...(await checkAgentCommands(options)), ...(await checkGithubClient(options))];
      for (const result of results) {
        if (result.status === 'ok') logger.debug(`start check: ${result.check}: ${result.detail}`);
        else logger.warn(warningLine(result));
      }
    } catch (err) {
      logger.debug(`start checks failed: ${(err as Error).message}`);
    }
  }
}
