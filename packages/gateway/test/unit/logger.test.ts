import { Writable } from 'node:stream';
import { Redactor, createLogger } from '../../src/observe/logger';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _e, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { stream, lines };
}

describe('createLogger', () => {
  it('scrubs every registered secret from messages and metadata, in both formats', () => {
    for (const format of ['json', 'pretty'] as const) {
      const { stream, lines } = capture();
      const redactor = new Redactor();
      redactor.add('s3cr3t-token-value');
      const logger = createLogger({ stream, format, redactor });
      logger.warn('calling https://api.example/bots3cr3t-token-value/send', { url: 'x?key=s3cr3t-token-value', nested: { token: 's3cr3t-token-value' } });
      expect(lines.join('')).not.toContain('s3cr3t-token-value');
      expect(lines.join('')).toContain('[REDACTED]');
    }
  });

  it('drops lines below its level, including from child loggers, and follows level changes', () => {
    const { stream, lines } = capture();
    const logger = createLogger({ stream, format: 'json', level: 'warn' });
    logger.info('not shown');
    logger.child({ plugin: 'p' }).debug('not shown either');
    logger.warn('shown');
    logger.level = 'debug';
    logger.debug('now shown');
    expect(lines.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual(['shown', 'now shown']);
  });
});
