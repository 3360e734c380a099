// How an SMTP failure (a nodemailer error: `code`, `responseCode`, `command`) maps onto the kit's failure
// kinds: rejected credentials and permanently refused recipients are not retried, temporary 4xx replies
// and connection trouble are.
import type { PlatformFailure } from '@hookwise/kit/platform';

export interface SmtpError {
  message?: string;
  code?: string;
  responseCode?: number;
  command?: string;
}

/** Reply codes of a refused login: 530 auth required, 534 mechanism too weak, 535 bad credentials, 538 encryption required. */
const AUTH_REPLIES = new Set([530, 534, 535, 538]);
const CONNECTION_CODES = new Set(['ECONNECTION', 'ESOCKET', 'ETIMEDOUT', 'EDNS', 'ECONNREFUSED', 'ECONNRESET', 'EPROTOCOL']);

export function classifySmtpError(err: SmtpError): PlatformFailure {
  const reply = err.responseCode;
  const message = `${err.code ?? 'error'}${err.command ? ` at ${err.command}` : ''}: ${(err.message ?? 'unknown SMTP error').replace(/\s+/g, ' ').slice(0, 300)}`;
  if (err.code === 'EAUTH' || (reply !== undefined && AUTH_REPLIES.has(reply))) return { kind: 'auth', message };
  // No STARTTLS (or a failed TLS handshake) while TLS is required: the server or tls_ca must change. Checked
  // before the reply code, as a refused STARTTLS command comes with a 5xx.
  if (err.code === 'ETLS' || err.code === 'EREQUIRETLS') {
    return {
      kind: 'config',
      message: `${message}; the server must offer STARTTLS (required whenever user/password are set), or use secure: true for implicit TLS; for a private CA set tls_ca`,
    };
  }
  // 4xx: "try again later" (greylisting, mailbox busy, server shutting down).
  if (reply !== undefined && reply >= 400 && reply < 500) return { kind: 'unavailable', message };
  if (reply !== undefined && reply >= 500) return { kind: err.code === 'EENVELOPE' ? 'target' : 'rejected', message };
  if (err.code === 'EENVELOPE') return { kind: 'target', message };
  if (err.code === 'EMESSAGE') return { kind: 'rejected', message };
  if (err.code !== undefined && CONNECTION_CODES.has(err.code)) return { kind: 'unavailable', message };
  return { kind: 'unavailable', message };
}
