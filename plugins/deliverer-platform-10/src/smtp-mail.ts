// platform_10: e-mail over SMTP with nodemailer. One answer is one message (multipart/alternative: the
// markdown as text/plain, rendered HTML as text/html); only answers beyond MESSAGE_LIMIT are split into
// several mails. TLS: `secure` for implicit TLS (port 465), otherwise STARTTLS whenever the server offers it.
import { isHookwiseError } from '@hookwise/core';
import { definePlatform, deliveryKey, extraValue, failureToError, markdownToHtml, platformOptionsSchema, renderChunkTemplate, type OutgoingChunk, type PlatformOptions, type PlatformRuntime } from '@hookwise/kit';
import { classifySmtpError, type SmtpError } from './smtp-failure';

export interface SmtpMailOptions extends PlatformOptions {
  host: string;
  /** Default 465 with `secure`, else 587. */
  port?: number;
  /** TLS from the first byte (port 465). Without it STARTTLS is used when the server offers it. */
  secure?: boolean;
  /** Refuse to send unless STARTTLS succeeds (only meaningful without `secure`). */
  require_tls?: boolean;
  user?: string;
  password?: string;
  /** Sender, e.g. "Hookwise <hookwise@example.com>". */
  from: string;
  /** Subject template: {route}, {event}, {delivery_id}. */
  subject?: string;
}

/** Characters per mail: one answer is one mail up to here (about 1-2 MB on the wire with both parts). */
export const MESSAGE_LIMIT = 200_000;
export const DEFAULT_SUBJECT = '[Hookwise] {route}: {event}';
const TITLE = 'platform_10 (E-mail)';
const CREDENTIALS_HINT = 'check platforms.platform_10.user and password (many providers want an app password, not the account password)';

function port(o: SmtpMailOptions): number {
  return o.port ?? (o.secure ? 465 : 587);
}

function transport(o: SmtpMailOptions) {
  // Required on the first mail, not at import: every gateway and `hookwise webhook subscribe` load this plugin.
  const nodemailer = require('nodemailer') as typeof import('nodemailer');
  const timeout = (o.timeout_seconds ?? 15) * 1000;
  return nodemailer.createTransport({
    host: o.host,
    port: port(o),
    secure: o.secure ?? false,
    requireTLS: o.require_tls ?? false,
    auth: o.user ? { user: o.user, pass: o.password ?? '' } : undefined,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  });
}

/** Runs one SMTP exchange; its failures become the kit's HookwiseErrors with the kit's wording. */
async function smtp<T>(o: SmtpMailOptions, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isHookwiseError(err)) throw err;
    throw failureToError(classifySmtpError(err as SmtpError), { label: TITLE, credentialsHint: CREDENTIALS_HINT, where: `${what} via ${o.host}:${port(o)}` });
  }
}

/** The domain of the sender address, for Message-IDs. */
function senderDomain(from: string): string {
  return /@([^\s>]+)>?\s*$/.exec(from)?.[1] ?? 'hookwise.invalid';
}

async function sendMail(chunk: OutgoingChunk, runtime: PlatformRuntime<SmtpMailOptions>): Promise<string | undefined> {
  const o = runtime.options;
  const subject = renderChunkTemplate(extraValue(chunk.extra, 'subject') ?? o.subject ?? DEFAULT_SUBJECT, chunk);
  const info = await smtp(o, 'sending mail', () =>
    transport(o).sendMail({
      from: o.from,
      to: chunk.target,
      subject,
      text: chunk.text,
      html: `<!DOCTYPE html><html><body>\n${markdownToHtml(chunk.text)}\n</body></html>`,
      // Stable per chunk: a retried delivery produces the same Message-ID, so mail clients can tell repeats.
      messageId: `<hookwise.${deliveryKey(chunk)}@${senderDomain(o.from)}>`,
      // RFC 3834: machine-generated, so vacation responders do not answer it.
      headers: { 'Auto-Submitted': 'auto-generated' },
    }),
  );
  return info.messageId;
}

export const smtpMailPlatform = definePlatform<SmtpMailOptions>({
  id: 'platform_10',
  title: 'E-mail',
  description: 'Sends answers as e-mail (text and HTML) through an SMTP server.',
  limit: MESSAGE_LIMIT,
  optionsSchema: platformOptionsSchema({
    apiBase: null,
    properties: {
      host: { type: 'string', minLength: 1, description: 'SMTP server host name.' },
      port: { type: 'integer', minimum: 1, maximum: 65535, description: 'SMTP port; default 465 with secure, else 587.' },
      secure: { type: 'boolean', default: false, description: 'TLS from the start (port 465). Otherwise STARTTLS when offered.' },
      require_tls: { type: 'boolean', default: false, description: 'Fail unless STARTTLS succeeds (without secure).' },
      user: { type: 'string', minLength: 1, description: 'SMTP login user.' },
      password: { type: 'string', minLength: 1, description: 'SMTP password or app password.' },
      from: { type: 'string', minLength: 3, description: 'Sender address, e.g. "Hookwise <hookwise@example.com>".' },
      subject: { type: 'string', default: DEFAULT_SUBJECT, description: 'Subject template: {route}, {event}, {delivery_id}.' },
      home_channel: { type: 'string', minLength: 3, description: 'Default recipient address(es), comma-separated.' },
      timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 300, default: 15, description: 'Timeout for connecting, the greeting and each SMTP reply.' },
    },
    required: ['host', 'from'],
  }),
  secrets: (o) => [o.password],
  credentialsHint: CREDENTIALS_HINT,
  configProblems: (o) => (Boolean(o.user) !== Boolean(o.password) ? ['set both user and password for SMTP AUTH, or neither'] : []),
  send: sendMail,
  async start({ options, logger }) {
    await smtp(options, 'verifying the connection', () => transport(options).verify());
    logger.info(`${TITLE}: SMTP server ${options.host}:${port(options)} accepted the connection${options.user ? ' and the login' : ''}`);
  },
});
