// email: e-mail over SMTP with nodemailer. One answer is one message
// (multipart/alternative: the markdown as text/plain, rendered HTML as text/html); only answers beyond
// MESSAGE_LIMIT are split into several mails. TLS: `secure` for implicit TLS (port 465), otherwise STARTTLS,
// required whenever credentials are sent. A recipient is one address unless a list is allowed, so a
// templated chat_id with a comma cannot add recipients.
import { isHookwiseError } from '@hookwise/core';
import {
  definePlatform,
  deliveryKey,
  extraValue,
  failureToError,
  markdownToHtml,
  platformOptionsSchema,
  renderChunkTemplate,
  type OutgoingChunk,
  type PlatformOptions,
  type PlatformRuntime,
  type SentPart,
  type TargetContext,
} from '@hookwise/kit/platform';
import { classifySmtpError, type SmtpError } from './smtp-failure';

export interface SmtpMailOptions extends PlatformOptions {
  host: string;
  /** Default 465 with `secure`, else 587. */
  port?: number;
  /** TLS from the first byte (port 465). Without it STARTTLS is used when the server offers it. */
  secure?: boolean;
  /** Refuse to send unless STARTTLS succeeds (only meaningful without `secure`); always on with credentials. */
  require_tls?: boolean;
  /** PEM certificate(s) of a private CA the server's certificate chains to. */
  tls_ca?: string;
  /** Whether deliver_extra.chat_id may list several addresses (comma-separated). Default false. */
  allow_recipient_list?: boolean;
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
const TITLE = 'email (E-mail)';
const CREDENTIALS_HINT = 'check platforms.email.user and password (many providers want an app password, not the account password)';

/** A bare address (RFC 5321 mailbox, dot-atom local part): no display name, comment, quotes, comma or line break. */
const ADDRESS =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
/** More recipients than this in one list is not an answer to a webhook. */
const MAX_RECIPIENTS = 50;

function recipients(target: string): string[] {
  return target.split(',').map((address) => address.trim());
}

/** Lists come from config (home_channel), or from chat_id when the platform or the route allows them. */
function listAllowed({ options, source, extra }: TargetContext<SmtpMailOptions>): boolean {
  return source === 'home_channel' || options.allow_recipient_list === true || extraValue(extra, 'allow_recipient_list') === 'true';
}

function targetProblem(target: string, ctx: TargetContext<SmtpMailOptions>): string | undefined {
  const list = recipients(target);
  if (list.length > 1 && !listAllowed(ctx))
    return 'it names several recipients; set platforms.email.allow_recipient_list (or deliver_extra.allow_recipient_list: "true" on the route) to allow lists';
  if (list.length > MAX_RECIPIENTS) return `it names ${list.length} recipients (at most ${MAX_RECIPIENTS})`;
  const bad = list.find((address) => !ADDRESS.test(address));
  return bad === undefined ? undefined : `${JSON.stringify(bad.slice(0, 80))} is not a bare e-mail address`;
}

function port(o: SmtpMailOptions): number {
  return o.port ?? (o.secure ? 465 : 587);
}

/** Credentials never travel in the clear: with a login, STARTTLS is required unless TLS is implicit. */
function requireTls(o: SmtpMailOptions): boolean {
  return o.require_tls ?? Boolean(o.user);
}

function transport(o: SmtpMailOptions) {
  // Required on the first mail, not at import: every gateway and `hookwise webhook subscribe` load this plugin.
  const nodemailer = require('nodemailer') as typeof import('nodemailer');
  const timeout = (o.timeout_seconds ?? 15) * 1000;
  return nodemailer.createTransport({
    host: o.host,
    port: port(o),
    secure: o.secure ?? false,
    requireTLS: requireTls(o),
    ...(o.tls_ca ? { tls: { ca: o.tls_ca } } : {}),
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

async function sendMail(chunk: OutgoingChunk, runtime: PlatformRuntime<SmtpMailOptions>): Promise<SentPart> {
  const o = runtime.options;
  const subject = renderChunkTemplate(extraValue(chunk.extra, 'subject') ?? o.subject ?? DEFAULT_SUBJECT, chunk);
  const info = await smtp(o, 'sending mail', () =>
    transport(o).sendMail({
      from: o.from,
      // Checked addresses only, as a list: nodemailer gets no string it could parse into more recipients.
      to: recipients(chunk.target),
      subject,
      text: chunk.text,
      html: `<!DOCTYPE html><html><body>\n${markdownToHtml(chunk.text)}\n</body></html>`,
      // Stable per chunk: a retried delivery produces the same Message-ID, so mail clients can tell repeats.
      messageId: `<hookwise.${deliveryKey(chunk)}@${senderDomain(o.from)}>`,
      // RFC 3834: machine-generated, so vacation responders do not answer it.
      headers: { 'Auto-Submitted': 'auto-generated' },
    }),
  );
  // Recipients the server refused while it accepted others: the mail went out, those did not get it.
  const rejected = ((info.rejected ?? []) as Array<string | { address: string }>).map((r) => (typeof r === 'string' ? r : r.address));
  if (rejected.length) {
    const reasons = (info.rejectedErrors ?? []).map((e) => `${e.responseCode ?? ''} ${e.message}`.trim()).join('; ');
    return {
      id: info.messageId,
      partial: { kind: 'partial', message: `the server refused ${rejected.join(', ')}${reasons ? ` (${reasons})` : ''}`, failed: rejected },
    };
  }
  return { id: info.messageId };
}

export const emailPlatform = definePlatform<SmtpMailOptions>({
  id: 'email',
  aliases: ['platform_10'],
  title: 'E-mail',
  description: 'Sends answers as e-mail (text and HTML) through an SMTP server.',
  limit: MESSAGE_LIMIT,
  maxParts: 3,
  targets: {
    format:
      'one bare e-mail address (dev@example.org); a comma-separated list only where allowed (home_channel, platforms.email.allow_recipient_list, or deliver_extra.allow_recipient_list: "true")',
    check: targetProblem,
    recipients,
  },
  optionsSchema: platformOptionsSchema({
    apiBase: null,
    properties: {
      host: { type: 'string', minLength: 1, description: 'SMTP server host name.' },
      port: { type: 'integer', minimum: 1, maximum: 65535, description: 'SMTP port; default 465 with secure, else 587.' },
      secure: { type: 'boolean', default: false, description: 'TLS from the start (port 465). Otherwise STARTTLS when offered.' },
      require_tls: {
        type: 'boolean',
        description: 'Fail unless STARTTLS succeeds (without secure). On whenever user/password are set; cannot be turned off then.',
      },
      tls_ca: { type: 'string', minLength: 1, description: 'PEM certificate(s) of a private CA that signed the server certificate.' },
      allow_recipient_list: { type: 'boolean', default: false, description: 'Let deliver_extra.chat_id name several comma-separated addresses.' },
      user: { type: 'string', minLength: 1, description: 'SMTP login user.' },
      password: { type: 'string', minLength: 1, description: 'SMTP password or app password.' },
      from: { type: 'string', minLength: 3, description: 'Sender address, e.g. "Hookwise <hookwise@example.com>".' },
      subject: { type: 'string', default: DEFAULT_SUBJECT, description: 'Subject template: {route}, {event}, {delivery_id}.' },
      home_channel: { type: 'string', minLength: 3, description: 'Default recipient address(es), comma-separated.' },
      timeout_seconds: {
        type: 'number',
        exclusiveMinimum: 0,
        maximum: 300,
        default: 15,
        description: 'Timeout for connecting, the greeting and each SMTP reply.',
      },
    },
    required: ['host', 'from'],
  }),
  secrets: (o) => [o.password],
  credentialsHint: CREDENTIALS_HINT,
  configProblems: (o) => [
    ...(Boolean(o.user) !== Boolean(o.password) ? ['set both user and password for SMTP AUTH, or neither'] : []),
    ...(o.user && o.require_tls === false && !o.secure
      ? ['require_tls: false would send the password in the clear; remove it (STARTTLS is required with credentials) or use secure: true (port 465)']
      : []),
  ],
  send: sendMail,
  async start({ options, logger }) {
    await smtp(options, 'verifying the connection', () => transport(options).verify());
    logger.info(`${TITLE}: SMTP server ${options.host}:${port(options)} accepted the connection${options.user ? ' and the login' : ''}`);
  },
});
