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
    const { level, message, timestamp, plugin, id, ...rest } = info as Record<string, unknown>;
    const scope = plugin ? ` [${String(id ?? plugin)}]` : '';
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
  const logger: winston.Logger = winston.createLogger({ level: options.level ?? 'info', format, transports: [transport], silent: options.silent });
  return logger;
}
