// Documented Linear deliveries, and Linear's own SDK (ESM-only, so run in a child process) as the verification oracle.
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { resolve } from 'node:path';

/**
 * linear.app/developers/webhooks, "Data change events payload": the example Comment create. `webhookTimestamp`
 * is the time of sending, so tests put the current time there; everything else is the documented payload.
 */
export function commentCreate(webhookTimestamp = Date.now()): string {
  return JSON.stringify({
    action: 'create',
    data: {
      id: '2174add1-f7c8-44e3-bbf3-2d60b5ea8bc9',
      createdAt: '2020-01-23T12:53:18.084Z',
      updatedAt: '2020-01-23T12:53:18.084Z',
      archivedAt: null,
      body: 'Indeed, I think this is definitely an improvement over the previous version.',
      edited: false,
      issueId: '539068e2-ae88-4d09-bd75-22eb4a59612f',
      userId: 'aacdca22-6266-4c0a-ab3c-8fa70a26765c',
    },
    type: 'Comment',
    url: 'https://linear.app/issue/LIN-1778/foo-bar#comment-77217de3-fb52-4dad-bb9a-b356beb93de8',
    createdAt: '2020-01-23T12:53:18.084Z',
    organizationId: 'dc844923-f9a4-40a3-825c-dea7747e57d6',
    webhookTimestamp,
    webhookId: '000042e3-d123-4980-b49f-8e140eef9329',
  });
}

/** The documented headers beside the signature (same page, "Webhook Payload"). */
export const DOCUMENTED_HEADERS = { 'linear-delivery': '234d1a4e-b617-4388-90fe-adc3633d6b72', 'linear-event': 'Comment', 'user-agent': 'Linear-Webhook' };

/** Linear's documented scheme: the hex HMAC-SHA256 of the raw body with the webhook's signing secret. */
export const linearSignature = (secret: string, body: string | Buffer) => createHmac('sha256', secret).update(body).digest('hex');

export interface SdkCheck {
  secret: string;
  body: string;
  signature: string;
}

/**
 * Runs `new LinearWebhookClient(secret).verify(body, signature)` from `@linear/sdk/webhooks` for each check: true,
 * or the SDK's error message. Also returns the SDK's header and field names.
 */
export function linearSdkVerify(checks: SdkCheck[]): { results: Array<true | string>; signatureHeader: string; timestampField: string } {
  const script = `
    import { LinearWebhookClient, LINEAR_WEBHOOK_SIGNATURE_HEADER, LINEAR_WEBHOOK_TS_FIELD } from '@linear/sdk/webhooks';
    let raw = '';
    for await (const chunk of process.stdin) raw += chunk;
    const results = JSON.parse(raw).map(({ secret, body, signature }) => {
      try { return new LinearWebhookClient(secret).verify(Buffer.from(body), signature); } catch (err) { return String(err.message); }
    });
    process.stdout.write(JSON.stringify({ results, signatureHeader: LINEAR_WEBHOOK_SIGNATURE_HEADER, timestampField: LINEAR_WEBHOOK_TS_FIELD }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: resolve(__dirname, '../../..'), input: JSON.stringify(checks) });
  return JSON.parse(out.toString('utf8'));
}
