// winston loggers with secret redaction: every registered secret is scrubbed from messages and metadata.
import type winston from 'winston';

export type LogFormat = 'pretty' | 'json';

/** Holds the secrets to scrub; shared by the gateway, its plugins and the workers. */
export class Redactor {
  private readonly secrets = new Set<string>();
  private pattern?: RegExp;

  add(secret: string | undefined): void {
    // Whatever its length: a short credential a plugin registers is still a credential (issue 20). Webhook
    // secrets under 16 characters are refused at load (secret-policy.ts), so ordinary words are rarely hit.
    if (!secret || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    const escaped = [...this.secrets].sort((a, b) => b.length - a.length).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    this.pattern = new RegExp(escaped.join('|'), 'g');
  }

  /** Whether `value` is one of the registered secrets (child processes leave such variables out). */
  has(value: string): boolean {
    return this.secrets.has(value);
  }

  redact(text: string): string {
    if (!this.pattern) return text;
    this.pattern.lastIndex = 0;
    return text.replace(this.pattern, '[REDACTED]');
  }

  redactValue(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (depth > 6 || value === null || typeof value !== 'object') return value;
    if (value instanceof Error) return this.redact(value.stack ?? value.message);
    if (Array.isArray(value)) return value.map((v) => this.redactValue(v, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = this.redactValue(v, depth + 1);
    return out;
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
