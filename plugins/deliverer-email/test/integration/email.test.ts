// Wire behaviour against a real SMTP server (smtp-server): STARTTLS (RFC 3207), AUTH (RFC 4954), reply codes
// (RFC 5321: 451 temporary, 550 permanent), nodemailer's sendMail info (accepted/rejected recipients,
// https://nodemailer.com/usage/#sending-mail) and its SMTP options (https://nodemailer.com/smtp/: requireTLS, tls.ca).
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Deliverer } from '@hookwise/core';
import { createTestPluginContext, deliverOptions, deliveryMessage, rejectionOf } from '@hookwise/testing';
import plugin, { emailPlatform, type SmtpMailOptions } from '@hookwise/plugin-deliverer-email';
import { PASSWORD, TLS_CA, USER, startSmtpServer } from '../smtp-stand-in';

/** Splits a raw message into its header block (unfolded) and body. */
function headersOf(raw: string): Record<string, string> {
  const head = raw.split(/\r?\n\r?\n/, 1)[0].replace(/\r?\n[ \t]+/g, ' ');
  const out: Record<string, string> = {};
  for (const line of head.split(/\r?\n/)) {
    const i = line.indexOf(':');
    out[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  return out;
}

/** The parts of a multipart body: {content-type, body} with quoted-printable decoded. */
function partsOf(raw: string): Array<{ type: string; body: string }> {
  const boundary = /boundary="?([^";\r\n]+)"?/.exec(headersOf(raw)['content-type'])![1];
  return raw
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => {
      const [head, ...rest] = part.replace(/^\r?\n/, '').split(/\r?\n\r?\n/);
      const headers = headersOf(`${head}\r\n\r\n`);
      let body = rest.join('\r\n\r\n').replace(/\r?\n$/, '');
      if (/quoted-printable/i.test(headers['content-transfer-encoding'] ?? '')) {
        body = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
        body = Buffer.from(body, 'latin1').toString('utf8');
      }
      return { type: headers['content-type'], body: body.replace(/\r\n/g, '\n') };
    });
}

let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
afterEach(() => smtp?.close());

function setup(overrides: Partial<SmtpMailOptions> = {}) {
  const test = createTestPluginContext();
  const options: SmtpMailOptions = {
    host: '127.0.0.1',
    port: smtp.port,
    secure: false,
    user: USER,
    password: PASSWORD,
    from: 'Hookwise <hookwise@example.com>',
    subject: '[Hookwise] {route}: {event}',
    home_channel: 'ops@example.com',
    timeout_seconds: 5,
    tls_ca: TLS_CA,
    ...overrides,
  };
  return { ...test, deliverer: emailPlatform.create(options, test.ctx) as Deliverer };
}

describe('email (e-mail over SMTP)', () => {
  beforeEach(async () => {
    smtp = await startSmtpServer();
  });

  it('contributes email (alias platform_10), which must be enabled, with no api_base and host/from required', () => {
    expect(plugin.contributes).toEqual([emailPlatform]);
    expect([emailPlatform.id, emailPlatform.aliases]).toEqual(['email', ['platform_10']]);
    expect(emailPlatform.requiresEnabled).toBe(true);
    const schema = emailPlatform.optionsSchema as { required: string[]; properties: Record<string, unknown> };
    expect(schema.required).toEqual(['host', 'from']);
    expect(schema.properties.api_base).toBeUndefined();
  });

  it('logs in and sends one multipart/alternative mail (markdown as text/plain, HTML) to chat_id', async () => {
    const { deliverer } = setup();
    const receipt = await deliverer.deliver(
      deliveryMessage('**CI** failed on `main`\n\nSee [the log](https://ci.example/1).', { chat_id: 'dev@example.org' }),
      deliverOptions(),
    );
    expect(smtp.logins).toEqual([USER]);
    expect(smtp.secured).toEqual([true]);
    expect(smtp.received).toHaveLength(1);
    const [mail] = smtp.received;
    expect([mail.from, mail.to]).toEqual(['hookwise@example.com', ['dev@example.org']]);
    const headers = headersOf(mail.raw);
    expect(headers.from).toBe('Hookwise <hookwise@example.com>');
    expect(headers.to).toBe('dev@example.org');
    expect(headers.subject).toBe('[Hookwise] test-route: push');
    expect(headers['auto-submitted']).toBe('auto-generated');
    expect(headers['message-id']).toMatch(/^<hookwise\.[0-9a-f]{32}\.0@example\.com>$/);
    expect(headers['content-type']).toMatch(/^multipart\/alternative; boundary=/);
    const parts = partsOf(mail.raw);
    expect(parts.map((p) => p.type)).toEqual(['text/plain; charset=utf-8', 'text/html; charset=utf-8']);
    expect(parts[0].body).toBe('**CI** failed on `main`\n\nSee [the log](https://ci.example/1).');
    expect(parts[1].body).toContain('<p><strong>CI</strong> failed on <code>main</code></p>\n<p>See <a href="https://ci.example/1">the log</a>.</p>');
    expect(receipt).toEqual({ target: 'dev@example.org', ids: [headers['message-id']] });
  });

  it('sends to home_channel without chat_id; deliver_extra.subject overrides the subject template', async () => {
    const { deliverer } = setup({ subject: '{event} {delivery_id} {repo}' });
    await deliverer.deliver(deliveryMessage('one'), deliverOptions());
    await deliverer.deliver(deliveryMessage('two', { subject: 'Release 1.2 is out' }, 'delivery-2'), deliverOptions());
    expect(smtp.received.map((m) => [m.to, headersOf(m.raw).subject])).toEqual([
      [['ops@example.com'], 'push delivery-1 {repo}'],
      [['ops@example.com'], 'Release 1.2 is out'],
    ]);
  });

  it('keeps a long answer in one mail, and splits only beyond 200000 characters, numbering the subjects', async () => {
    const { deliverer } = setup();
    const paragraph = `${'word '.repeat(199)}end`;
    await deliverer.deliver(deliveryMessage(Array(50).fill(paragraph).join('\n\n')), deliverOptions());
    expect(smtp.received).toHaveLength(1);
    await deliverer.deliver(deliveryMessage(Array(250).fill(paragraph).join('\n\n'), {}, 'delivery-2'), deliverOptions());
    expect(smtp.received.slice(1).map((m) => headersOf(m.raw).subject)).toEqual(['[Hookwise] test-route: push (1/2)', '[Hookwise] test-route: push (2/2)']);
  });

  it('hands a temporary refusal (451) back to the worker as retryable; the retry sends the mail', async () => {
    await smtp.close();
    smtp = await startSmtpServer({ rejectRcpt: { code: 451, message: 'Greylisted, try again later' } });
    const { deliverer } = setup();
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', true]);
    expect(err.message).toContain('451');
    await deliverer.deliver(deliveryMessage('hi'), deliverOptions(2));
    expect(smtp.received).toHaveLength(1);
  });

  it('reports a permanently refused recipient (550) as a bad target', async () => {
    await smtp.close();
    smtp = await startSmtpServer({ rejectRcpt: { code: 550, message: 'No such user' } });
    const { deliverer } = setup();
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: 'nobody@example.com' }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
  });

  it('does not retry bad credentials (535) and never shows the password', async () => {
    const wrong = 'wrong-password-x8d7';
    const { deliverer, logs, redacted } = setup({ password: wrong });
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
    expect(err.message).toContain('535');
    expect(err.message).toContain('platforms.email.user and password');
    expect(err.message + logs.join('\n')).not.toContain(wrong);
    expect(redacted).toContain(wrong);
    expect(smtp.received).toHaveLength(0);
  });

  it.each([
    'dev@example.org,boss@example.org',
    'dev@example.org, boss@example.org',
    'Dev <dev@example.org>',
    'dev@example.org\r\nBcc: x@evil.example',
    'dev',
    '"a,b"@example.org',
    '..',
  ])('refuses chat_id %j (a list or anything but a bare address) without connecting', async (chatId) => {
    const { deliverer } = setup();
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi', { chat_id: chatId }), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_TARGET', false]);
    expect(smtp.logins).toEqual([]);
  });

  it('accepts a list in chat_id where the route or the platform allows it, each address checked against allowed_targets', async () => {
    const byRoute = setup({ allowed_targets: ['/[a-z]+@example\\.org/'] });
    await byRoute.deliverer.deliver(deliveryMessage('hi', { chat_id: 'dev@example.org, qa@example.org', allow_recipient_list: 'true' }), deliverOptions());
    expect(smtp.received.at(-1)!.to).toEqual(['dev@example.org', 'qa@example.org']);
    const outside = await rejectionOf(
      byRoute.deliverer.deliver(deliveryMessage('hi', { chat_id: 'dev@example.org,x@evil.example', allow_recipient_list: 'true' }, 'd-2'), deliverOptions()),
    );
    expect(outside.message).toContain('"x@evil.example" is not in platforms.email.allowed_targets');
    const byPlatform = setup({ allow_recipient_list: true });
    await byPlatform.deliverer.deliver(deliveryMessage('hi', { chat_id: 'a@example.org,b@example.org' }, 'd-3'), deliverOptions());
    expect(smtp.received).toHaveLength(2);
  });

  it('reports recipients the server refused while it accepted others in the receipt (info.rejected)', async () => {
    await smtp.close();
    smtp = await startSmtpServer({ rejectRcpt: { code: 550, message: 'No such user' } });
    const { deliverer, logs } = setup({ allow_recipient_list: true });
    const receipt = await deliverer.deliver(deliveryMessage('hi', { chat_id: 'gone@example.org,dev@example.org' }), deliverOptions());
    expect(smtp.received.map((m) => m.to)).toEqual([['dev@example.org']]);
    expect(receipt.partial).toEqual([{ index: 0, message: expect.stringContaining('gone@example.org'), failed: ['gone@example.org'] }]);
    expect(logs.join('\n')).toContain('did not reach gone@example.org');
  });

  it('never sends credentials without TLS: a server without STARTTLS is a configuration error', async () => {
    await smtp.close();
    smtp = await startSmtpServer({ noTls: true });
    const { deliverer } = setup();
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_CONFIG', false]);
    expect(err.message).toContain('STARTTLS');
    expect(smtp.logins).toEqual([]);
    expect(() => setup({ require_tls: false })).toThrow(/require_tls: false would send the password in the clear/);
  });

  it('start() verifies the connection and the login', async () => {
    const { deliverer, logs } = setup();
    await deliverer.start!();
    expect(smtp.logins).toEqual([USER]);
    expect(logs.join('\n')).toContain('accepted the connection and the login');
    const bad = setup({ password: 'not-the-password' });
    const err = await rejectionOf(bad.deliverer.start!());
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY_AUTH', false]);
  });
});

describe('email without a server', () => {
  it('treats a refused connection as retryable', async () => {
    // A port that was just free: nothing listens there.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    smtp = { port, received: [], logins: [], secured: [], close: async () => undefined };
    const { deliverer } = setup();
    const err = await rejectionOf(deliverer.deliver(deliveryMessage('hi'), deliverOptions()));
    expect([err.code, err.retryable]).toEqual(['HW_E_DELIVERY', true]);
    expect(err.message).toMatch(/ECONNREFUSED/);
  });

  it('refuses user without password at create time', () => {
    expect(() => emailPlatform.create({ host: 'h', from: 'a@b.c', user: 'u' }, createTestPluginContext().ctx)).toThrow(/set both user and password/);
  });
});
