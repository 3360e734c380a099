// Posts an approval's draft with Approve / Deny buttons to the approval chat (issue 31): Telegram sendMessage with
// an inline keyboard whose buttons carry `callback_data`, Slack chat.postMessage with a Block Kit `actions` block.
// The deliverers' Deliverer.deliver sends text only, so this module calls the two APIs itself with the tokens and
// api_base configured for the deliverers (platforms.telegram / platforms.slack). The gateway depends on no plugin
// and no kit, hence plain fetch.
import { HookwiseError } from '@hookwise/core';
import type { ApprovalVia } from '../config/approval-schema';

/** What the buttons' data say: `hwa:a:<job id>` approves, `hwa:d:<job id>` denies (Telegram allows 64 bytes). */
export const TELEGRAM_APPROVE = 'hwa:a:';
export const TELEGRAM_DENY = 'hwa:d:';
/** Slack buttons' action ids; the value is the job id. */
export const SLACK_APPROVE = 'hookwise_approve';
export const SLACK_DENY = 'hookwise_deny';

const DEFAULT_API_BASE: Record<ApprovalVia, string> = { telegram: 'https://api.telegram.org', slack: 'https://slack.com' };
/** Telegram's message limit is 4096 characters and a Slack section's text 3000: the draft is cut below both. */
const DRAFT_MAX = 2800;
const TIMEOUT_MS = 15_000;

export interface PlatformCredentials {
  token?: string;
  api_base?: string;
  home_channel?: string | number;
}

export interface Draft {
  jobId: string;
  route: string;
  deliveryId: string;
  answer: string;
  expiresAt: number;
}

function draftText(d: Draft): string {
  const answer = d.answer.length > DRAFT_MAX ? `${d.answer.slice(0, DRAFT_MAX)}\n… (cut here; the whole answer is on the dashboard)` : d.answer;
  return `Approval needed: route ${d.route}, event ${d.deliveryId} (expires ${new Date(d.expiresAt).toISOString()})\n\n${answer}`;
}

function base(via: ApprovalVia, creds: PlatformCredentials): string {
  return (creds.api_base ?? DEFAULT_API_BASE[via]).replace(/\/+$/, '');
}

/** Posts the draft; answers the chat and message id. Errors name the platform and what to check, never the token. */
export async function postDraft(via: ApprovalVia, creds: PlatformCredentials, chat: string, draft: Draft): Promise<{ chat: string; messageId?: string }> {
  if (!creds.token) {
    throw new HookwiseError('HW_E_DELIVERY_AUTH', `approval drafts via ${via} need platforms.${via}.token (the bot token the ${via} deliverer uses)`);
  }
  const text = draftText(draft);
  if (via === 'telegram') {
    const body = {
      chat_id: chat,
      text,
      reply_markup: {
        inline_keyboard: [
          [
            { text: 'Approve', callback_data: TELEGRAM_APPROVE + draft.jobId },
            { text: 'Deny', callback_data: TELEGRAM_DENY + draft.jobId },
          ],
        ],
      },
    };
    const answer = await call(via, `${base(via, creds)}/bot${creds.token}/sendMessage`, body);
    const result = answer.result as { message_id?: number } | undefined;
    return { chat, messageId: result?.message_id === undefined ? undefined : String(result.message_id) };
  }
  const body = {
    channel: chat,
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      {
        type: 'actions',
        block_id: `hookwise_approval`,
        elements: [
          { type: 'button', action_id: SLACK_APPROVE, style: 'primary', text: { type: 'plain_text', text: 'Approve' }, value: draft.jobId },
          { type: 'button', action_id: SLACK_DENY, style: 'danger', text: { type: 'plain_text', text: 'Deny' }, value: draft.jobId },
        ],
      },
    ],
  };
  const answer = await call(via, `${base(via, creds)}/api/chat.postMessage`, body, creds.token);
  return { chat: typeof answer.channel === 'string' ? answer.channel : chat, messageId: typeof answer.ts === 'string' ? answer.ts : undefined };
}

async function call(via: ApprovalVia, url: string, body: unknown, bearer?: string): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    // The message of a fetch failure names no URL; the URL holds Telegram's token, so it is never quoted.
    throw new HookwiseError('HW_E_DELIVERY', `approval draft via ${via}: the API could not be reached (${(err as Error).message}); it is retried`, {
      retryable: true,
    });
  }
  const answer = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (res.ok && answer.ok !== false) return answer;
  const why = String(answer.description ?? answer.error ?? `HTTP ${res.status}`);
  const auth = res.status === 401 || res.status === 403 || /invalid_auth|not_authed|token/.test(why);
  throw new HookwiseError(
    auth ? 'HW_E_DELIVERY_AUTH' : 'HW_E_DELIVERY',
    `approval draft via ${via} refused: ${why}; check platforms.${via}.token and the approval's chat`,
    { retryable: res.status === 429 || res.status >= 500 },
  );
}
