// `hookwise gateway run`: the gateway in the foreground, logs to stdout.
import { Command, Flags } from '@oclif/core';
import { configDirFlag, configDirFrom, userMessage } from '../../config-dir';

export default class GatewayRun extends Command {
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
      await runGateway({
        configDir: configDirFrom(flags['config-dir']),
        port: flags.port,
        host: flags.host,
        logLevel: flags['log-level'],
        logFormat: flags['log-format'] as 'pretty' | 'json' | undefined,
      });
    } catch (err) {
      this.error(userMessage(err), { exit: 1 });
    }
    // Stay alive: the HTTP server keeps the event loop busy until a signal stops it.
  }
}
