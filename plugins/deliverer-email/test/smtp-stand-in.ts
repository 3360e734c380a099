// A real SMTP server (smtp-server) on 127.0.0.1:0 for the email tests: AUTH required, and only after STARTTLS
// (a self-signed certificate for localhost/127.0.0.1 in test/fixtures, trusted through tls_ca) unless a test
// asks for a server without TLS; records what it accepts.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

export const USER = 'hookwise@example.com';
export const PASSWORD = 'app-password-7f3k9q2x';
/** The stand-in's certificate: what a deliverer passes as tls_ca to trust it. */
export const TLS_CA = readFileSync(join(__dirname, 'fixtures', 'localhost-cert.pem'), 'utf8');
const TLS_KEY = readFileSync(join(__dirname, 'fixtures', 'localhost-key.pem'), 'utf8');

export interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on 127.0.0.1:0 with AUTH required (after STARTTLS unless `noTls`); records what it accepts and whether TLS was used. */
export async function startSmtpServer(opts: { rejectRcpt?: { code: number; message: string }; noTls?: boolean } = {}) {
  const received: Received[] = [];
  const logins: string[] = [];
  const secured: boolean[] = [];
  let rejectRcpt = opts.rejectRcpt;
  const server = new SMTPServer({
    secure: false,
    authOptional: false,
    ...(opts.noTls ? { allowInsecureAuth: true, disabledCommands: ['STARTTLS'] } : { allowInsecureAuth: false, key: TLS_KEY, cert: TLS_CA }),
    logger: false,
    onAuth(auth, session, callback) {
      logins.push(auth.username ?? '');
      secured.push(Boolean(session.secure));
      if (auth.username === USER && auth.password === PASSWORD) return callback(null, { user: auth.username });
      return callback(Object.assign(new Error('Authentication credentials invalid'), { responseCode: 535 }));
    },
    onRcptTo(_address, _session, callback) {
      if (!rejectRcpt) return callback();
      const { code, message } = rejectRcpt;
      rejectRcpt = undefined;
      return callback(Object.assign(new Error(message), { responseCode: code }));
    },
    onData(stream, session, callback) {
      const parts: Buffer[] = [];
      stream.on('data', (c: Buffer) => parts.push(c));
      stream.on('end', () => {
        const envelope = session.envelope;
        received.push({
          from: (envelope.mailFrom as SMTPServerAddress).address,
          to: envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(parts).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = (server as unknown as { server: net.Server }).server.address() as AddressInfo;
  return { port, received, logins, secured, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
