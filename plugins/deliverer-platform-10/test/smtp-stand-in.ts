// A real SMTP server (smtp-server) on 127.0.0.1:0 for the platform_10 tests: AUTH required, no STARTTLS,
// records what it accepts.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

export const USER = 'hookwise@example.com';
export const PASSWORD = 'app-password-7f3k9q2x';

export interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on 127.0.0.1:0 with AUTH required and no STARTTLS; records what it accepts. */
export async function startSmtpServer(opts: { rejectRcpt?: { code: number; message: string } } = {}) {
  const received: Received[] = [];
  const logins: string[] = [];
  let rejectRcpt = opts.rejectRcpt;
  const server = new SMTPServer({
    secure: false,
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push(auth.username ?? '');
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
  return { port, received, logins, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
