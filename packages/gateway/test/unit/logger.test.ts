import { Writable } from 'node:stream';
import * as winston from 'winston';
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

  // The lines are written straight from the format to the stream (issue 33): the same bytes as winston's own way,
  // which a 'logged' listener on the transport forces, with the timestamps (taken per line) set aside.
  it("writes the same lines as winston's own stream pipeline, in both formats", () => {
    const sameTime = (lines: string[]) => lines.map((l) => l.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>'));
    for (const format of ['json', 'pretty'] as const) {
      let viaWinston = 0;
      const outputs = [true, false].map((direct) => {
        const { stream, lines } = capture();
        const redactor = new Redactor();
        redactor.add('s3cr3t-token-value');
        const logger = createLogger({ stream, format, redactor, level: 'info' });
        const transport = logger.transports[0] as winston.transport & { log: (info: unknown, next: () => void) => void };
        if (!direct) transport.on('logged', () => undefined);
        // Counts the lines that went winston's way (through the transport's log()).
        const log = transport.log.bind(transport);
        transport.log = (info, next) => {
          viaWinston += 1;
          log(info, next);
        };
        logger.info('POST /webhooks/ci 202 accepted route=ci event=push delivery=abc 3.1 ms client=127.0.0.1');
        logger.log('info', 'POST /webhooks/ci 202', { access: true, method: 'POST', path: '/webhooks/ci', status: 202, route: undefined, duration_ms: 0.5 });
        logger.log('info', 'a path with %s and %d in it', { access: true, status: 404 });
        logger.warn('token s3cr3t-token-value in a message', { nested: { token: 's3cr3t-token-value' }, list: [1, 'two'] });
        logger.error('failed', { error: new Error('boom') });
        logger.debug('below the level');
        logger.child({ plugin: 'p', id: 'runner-a' }).info('from a plugin', { job: 'j1' });
        logger.log({ level: 'info', message: 'an info object' });
        logger.info('with a message in its meta', { message: 'appended' });
        return sameTime(lines);
      });
      expect(outputs[0]).toHaveLength(8);
      expect(viaWinston).toBe(8);
      expect(outputs[0]).toEqual(outputs[1]);
      expect(outputs[0].join('')).not.toContain('s3cr3t-token-value');
    }
  });

  it('keeps the order of lines when the stream makes winston wait (backpressure)', async () => {
    const lines: string[] = [];
    // A stream that holds each write until the next turn with a tiny buffer: winston queues lines behind it.
    const stream = new Writable({
      highWaterMark: 1,
      write(chunk, _e, done) {
        lines.push(String(chunk));
        setImmediate(done);
      },
    });
    const logger = createLogger({ stream, format: 'json', level: 'info' });
    for (let i = 0; i < 20; i += 1) logger.info(`line ${i}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual(Array.from({ length: 20 }, (_, i) => `line ${i}`));
  });

  it("takes winston's way for a logger given another transport or silenced", () => {
    const first = capture();
    const second = capture();
    const logger = createLogger({ stream: first.stream, format: 'json', level: 'info' });
    logger.add(new winston.transports.Stream({ stream: second.stream }));
    logger.info('to both');
    logger.silent = true;
    logger.info('to none');
    expect(first.lines).toHaveLength(1);
    expect(second.lines).toHaveLength(1);
  });

  it('answers a line after end() as winston does (an error event, nothing written)', async () => {
    const { stream, lines } = capture();
    const logger = createLogger({ stream, format: 'json', level: 'info' });
    logger.info('before the end');
    const failed = new Promise<Error>((resolve) => logger.once('error', resolve));
    logger.end();
    logger.info('after the end');
    expect((await failed).message).toMatch(/write after end/);
    expect(lines.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual(['before the end']);
  });
});
