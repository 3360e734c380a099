// winston loggers with secret redaction: every registered secret is scrubbed from messages and metadata.
import { SecretScrubber } from '@hookwise/core';
import type winston from 'winston';

export type LogFormat = 'pretty' | 'json';

/**
 * Holds the secrets to scrub; shared by the gateway, its plugins and the workers. It is core's one redactor
 * (every form of a secret, one marker, any length), named for the gateway's use.
 */
export class Redactor extends SecretScrubber {
  redact(text: string): string {
    return this.scrub(text);
  }

  redactValue(value: unknown): unknown {
    return this.scrubValue(value);
  }
}

/** winston and the formats all loggers share; winston is required here, so importing the core does not load it. */
function loadWinston() {
  const winston = require('winston') as typeof import('winston');
  const redactFormat = winston.format((info, opts) => {
    const redactor = (opts as { redactor?: Redactor } | undefined)?.redactor;
    if (!redactor) return info;
    for (const key of Object.keys(info)) {
      (info as Record<string, unknown>)[key] = redactor.redactValue((info as Record<string, unknown>)[key]);
    }
    return info;
  });
  const pretty = winston.format.printf((info) => {
    const { level, message, timestamp, plugin, id, profile, ...rest } = info as Record<string, unknown>;
    const scope = `${profile ? ` [${String(profile)}]` : ''}${plugin ? ` [${String(id ?? plugin)}]` : ''}`;
    const meta = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
    return `${String(timestamp)} ${String(level)}${scope}: ${String(message)}${meta}`;
  });
  return { winston, redactFormat, pretty };
}

let loaded: ReturnType<typeof loadWinston> | undefined;

export interface LoggerOptions {
  level?: string;
  format?: LogFormat;
  redactor?: Redactor;
  /** Where to write; default stdout. Tests pass their own stream. */
  stream?: NodeJS.WritableStream;
  silent?: boolean;
  /** A profile's gateway: every line carries `profile` (JSON) or starts with `[<profile>]` (pretty). */
  profile?: string;
}

export function createLogger(options: LoggerOptions = {}): winston.Logger {
  const { winston, redactFormat, pretty } = (loaded ??= loadWinston());
  // winston formats a line before its transports drop it for its level; dropping it first makes disabled levels
  // (debug lines on the hot path) nearly free.
  // The closure only runs for log calls, which come after `logger` below is initialised.
  const enabledOnly = winston.format((info) => (logger.isLevelEnabled(info.level) ? info : false))();
  const last = options.format === 'json' ? winston.format.json() : pretty;
  const format = winston.format.combine(enabledOnly, redactFormat({ redactor: options.redactor }), winston.format.timestamp(), last);
  const transport = options.stream ? new winston.transports.Stream({ stream: options.stream }) : new winston.transports.Console();
  const logger: winston.Logger = winston.createLogger({
    level: options.level ?? 'info',
    format,
    transports: [transport],
    silent: options.silent,
    defaultMeta: options.profile === undefined ? undefined : { profile: options.profile },
  });
  writeDirectly(logger, format, transport as unknown as WinstonTransport);
  return logger;
}

/** The parts of winston's objects the direct write reads (all set by winston 3 and winston-transport 4). */
interface StreamState {
  pipes: unknown;
  length: number;
  ending?: boolean;
}
type Info = Record<string | symbol, unknown>;
/** A winston transport as winston-transport 4 makes it (structural: winston-transport is winston's dependency, not ours). */
type WinstonTransport = NodeJS.EventEmitter & {
  silent?: boolean;
  level?: string;
  _writableState: StreamState;
  eol?: string;
  _stream?: NodeJS.WritableStream;
  isObjectMode?: boolean;
  stderrLevels?: Record<string, boolean>;
  consoleWarnLevels?: Record<string, boolean>;
  forceConsole?: boolean;
};
type ConsoleWithStreams = Console & { _stdout?: NodeJS.WritableStream };

/**
 * Every line goes from the format straight to the transport's stream when nothing else could tell the
 * difference: winston's own way runs the logger's Transform stream, a pipe and the transport's Writable (and a
 * setImmediate per line for its 'logged' event) around the same format and the same `stream.write`, a few µs per
 * line (an access line per request at the default level). The line is the format's own output,
 * written the way the transport writes it. Anything unusual (a line waiting in winston's buffers, another
 * transport, a changed format, a silenced logger or transport, a 'logged' listener, an unknown level, an exception
 * line, a level the console writes to stderr) takes winston's way, so the order and content of lines never differ.
 */
function writeDirectly(logger: winston.Logger, format: winston.Logform.Format, transport: WinstonTransport): void {
  // triple-beam's keys (winston's info[LEVEL] and info[MESSAGE]) are registered symbols.
  const LEVEL = Symbol.for('level');
  const MESSAGE = Symbol.for('message');
  const winstonWrite = logger.write.bind(logger) as (info: Info) => boolean;
  const internals = logger as unknown as { _readableState: StreamState; _writableState: StreamState; levels: Record<string, number> };
  const consoleStreams = console as ConsoleWithStreams;
  const destination = (level: string): NodeJS.WritableStream | undefined => {
    if (transport._stream) return transport.isObjectMode ? undefined : transport._stream;
    if (transport.forceConsole || transport.stderrLevels?.[level] || transport.consoleWarnLevels?.[level]) return undefined;
    return consoleStreams._stdout;
  };
  const direct = (info: Info): boolean => {
    if (
      logger.silent ||
      transport.silent ||
      logger.format !== format ||
      internals._readableState.pipes !== transport ||
      internals._writableState.length !== 0 ||
      internals._writableState.ending === true ||
      internals._readableState.length !== 0 ||
      transport._writableState.length !== 0 ||
      transport.listenerCount('logged') !== 0 ||
      logger.listenerCount('data') !== 1 ||
      info.exception === true
    ) {
      return winstonWrite(info);
    }
    if (!info[LEVEL]) info[LEVEL] = info.level;
    const level = info[LEVEL] as string;
    const rank = internals.levels[level];
    const out = rank === undefined ? undefined : destination(level);
    if (out === undefined) return winstonWrite(info);
    const line = format.transform(info as winston.Logform.TransformableInfo, (format as { options?: object }).options) as Info | false;
    // The transport's own level check (none of ours sets one: the logger's applies).
    const limit = internals.levels[transport.level || logger.level];
    if (line && !(limit < rank)) out.write(`${String(line[MESSAGE])}${transport.eol ?? '\n'}`);
    return true;
  };
  (logger as unknown as { write: typeof direct }).write = direct;
}
