// tracing.enabled without an OpenTelemetry SDK in the process: the gateway says so once instead of tracing into the void.
import { Writable } from 'node:stream';
import { validateConfigObject } from '../../src/config/load';
import { Gateway } from '../../src/gateway';
import { createLogger } from '../../src/observe/logger';
import { traceGateway } from '../../src/observe/tracing';

it('warns at start that spans go nowhere when no SDK is registered', () => {
  const lines: string[] = [];
  const logger = createLogger({ stream: new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }), format: 'json', level: 'debug' });
  const gateway = new Gateway({
    config: validateConfigObject({ platforms: { webhook: { extra: { host: '127.0.0.1' } } }, tracing: { enabled: true } }),
    configDir: '/tmp',
    logger,
  });
  const tracing = traceGateway(gateway);
  tracing.close();
  expect(lines.join('')).toContain('tracing.enabled is set but no OpenTelemetry SDK is registered in this process');
});
