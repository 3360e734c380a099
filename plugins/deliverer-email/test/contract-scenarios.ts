// The deliverer contract's inputs (run by the first-party contracts test), against a real SMTP server instead of an HTTP stand-in.
import type { Deliverer } from '@hookwise/core';
import { delivererContractCase } from '@hookwise/testing';
import { emailPlatform } from '@hookwise/plugin-deliverer-email';
import { PASSWORD, TLS_CA, USER, startSmtpServer } from './smtp-stand-in';

const servers: Array<Awaited<ReturnType<typeof startSmtpServer>>> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

// Each scenario gets its own SMTP server: 451 on RCPT is a temporary refusal, 550 a permanent one.
const REFUSALS = {
  deliver: undefined,
  retryable: { code: 451, message: 'Requested action aborted: try again later' },
  permanent: { code: 550, message: 'Mailbox unavailable' },
} as const;

export default delivererContractCase(
  'email (SMTP)',
  async ({ scenario, test }) => {
    const smtp = await startSmtpServer({ rejectRcpt: REFUSALS[scenario] });
    servers.push(smtp);
    const options = {
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      user: USER,
      password: PASSWORD,
      from: 'hookwise@example.com',
      home_channel: 'ops@example.com',
      timeout_seconds: 5,
      tls_ca: TLS_CA,
    };
    return emailPlatform.create(options, test.ctx) as Deliverer;
  },
  {
    secrets: [PASSWORD],
    // The text travels over SMTP, not to the HTTP stand-in: check what the SMTP server received instead.
    textReachesApi: false,
    verifyDelivered: (_world, _receipt, message) => {
      const mail = servers.at(-1)!.received.at(-1)!;
      expect(mail.to).toEqual(['ops@example.com']);
      expect(mail.raw).toContain(message.text);
    },
  },
);
