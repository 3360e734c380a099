// What plugins contribute to conversations and approvals. A source that can say "this inbound message
// answers that one" implements Source.replyOf; a source whose platform has buttons implements Source.pressOf and
// pressAnswer; a deliverer whose messages can be answered carries a `conversation` facet (how its receipt names
// what it sent, how an answer goes back into the same thread), and one that can post a draft with Approve / Deny
// buttons carries an `approval` facet. The gateway keeps the records and the rules; the platforms stay in their
// plugins, so a third-party platform takes part on the same terms as the first-party ones.

/** A message on a platform: the chat (or channel, or `owner/name` of a repository) and the platform's message id. */
export interface MessageRef {
  /** The platform's name, the same in the source's replies and the deliverer's facet (e.g. `telegram`). */
  platform: string;
  chat: string;
  /**
   * The platform's message id. Empty on a platform whose inbound messages name no message they answer (SMS, a
   * Mattermost outgoing webhook): there the deliverer's facet says `byChat`, its latest answer in the chat is
   * recorded under `''` too, and a message from that chat (within the route's ttl) continues that conversation.
   */
  messageId: string;
  /**
   * Set by a source when the message was written in a thread whose root is this id (a Matrix `m.thread`): the
   * deliverer's replyExtra answers in that thread. Not part of the record's key.
   */
  thread?: string;
}

/** An inbound message that answers another one (Source.replyOf). */
export interface InboundReply {
  /** The message it answers (Slack: the thread's root ts; GitHub: the pull request's number). */
  to: MessageRef;
  /** The author's platform user id, matched against `conversation.allow_from`. */
  userId: string;
  /** The author for people and prompts: "Telegram user 42 (Alice)". */
  from: string;
  text: string;
  /**
   * Other names allow_from may give the author by, each in a form no user id can take (GitHub and GitLab:
   * `association:MEMBER` for the author_association), so that a user cannot be listed under another's name.
   */
  alsoAllowedAs?: string[];
  /** The inbound message itself when the gateway may have posted it: one it recorded continues nothing. */
  own?: MessageRef;
  /**
   * The person's message itself (this reply), where the platform names it: the answer quotes it (Telegram
   * `reply_parameters`, a Matrix rich reply) rather than the gateway's own earlier message, in `thread` when the
   * reply was written in one. Absent: the answer replies to `to`. Never recorded as part of the conversation.
   */
  message?: MessageRef;
}

/** Who wrote an inbound message (Source.senderOf), matched against a chat route's `allow_from`. */
export interface InboundSender {
  /** The platform's user id (Telegram `from.id`, Slack `user`, a Matrix `@user:server`, a phone number). */
  id: string;
  /** The author for people and logs: "Telegram user 42 (Alice)". */
  from?: string;
  /**
   * Other names allow_from may give the same person by, each one the platform holds unique to them (a Mattermost
   * username, a Feishu user_id beside the open_id, DingTalk's senderId beside senderStaffId).
   */
  alsoAllowedAs?: string[];
}

/** A press of a draft's Approve / Deny button (Source.pressOf). */
export interface ApprovalPress {
  jobId: string;
  decision: 'approve' | 'deny';
  /** Who pressed: `platform` is the source's platform name, `id` the user id, `username` when the platform says. */
  presser: { platform: string; id: string; username?: string };
  /**
   * The message whose button was pressed (Telegram: `callback_query.message`; Slack: `channel` and
   * `container.message_ts`; Discord: `channel_id` and `message.id`). A press counts only on the draft the gateway
   * posted for that job: the same platform, chat and message; a press that names no message counts for nothing.
   */
  message?: MessageRef;
  /** Whatever the source needs to answer the press (Telegram: the callback query id). */
  answerWith?: string;
}

/** A held answer, as a deliverer's approval facet posts it. */
export interface ApprovalDraft {
  jobId: string;
  route: string;
  deliveryId: string;
  /** The whole text to show: the header line and the answer, already cut to a size every platform takes. */
  text: string;
  expiresAt: number;
  /** What the Approve and Deny buttons carry (approvalButtonData); Source.pressOf reads it back. */
  approveData: string;
  denyData: string;
}

/** A deliverer whose messages can be answered (Deliverer.conversation). */
export interface DelivererConversation {
  /** The platform name of its messages, the one its source's InboundReply.to.platform says. */
  readonly platform: string;
  /**
   * The messages a receipt says were created, that a reply may answer; default: each of `receipt.ids` in chat
   * `receipt.target`. `chat` is what people read in logs.
   */
  sentRefs?(receipt: { target?: string; ids?: string[] }): { chat: string; refs: MessageRef[] } | undefined;
  /**
   * True on a platform whose inbound messages name no message they answer (SMS, a Mattermost outgoing webhook):
   * each answer is also recorded as the chat's latest (MessageRef id ''), which the source's replies point at.
   */
  readonly byChat?: boolean;
  /**
   * The deliver_extra that sends an answer as a reply to `to`: in its chat, its thread, under it. `to` is the
   * person's message when the source named it (InboundReply.message), else the message their reply answered.
   */
  replyExtra(to: MessageRef, extra: Record<string, string>): Record<string, string>;
}

/** A deliverer that can post an approval draft with Approve / Deny buttons (Deliverer.approval). */
export interface DelivererApproval {
  /** The platform name pressers are recorded under (what its source's ApprovalPress.presser.platform says). */
  readonly platform: string;
  /** Posts the draft to `chat` (default: the deliverer's home channel); throws a HookwiseError with `retryable`. */
  postDraft(draft: ApprovalDraft, opts: { chat?: string; signal: AbortSignal }): Promise<{ chat: string; messageId?: string }>;
  /**
   * Edits a decided draft (where postDraft put it) to `text`, the decision with who made it and when, without its
   * buttons, so that nobody presses them again. Optional; throws a HookwiseError, which the gateway only logs.
   */
  decided?(draft: { chat: string; messageId: string }, text: string, opts: { signal: AbortSignal }): Promise<void>;
}

const APPROVE_PREFIX = 'hwa:a:';
const DENY_PREFIX = 'hwa:d:';
/** Job ids as the stores make them (UUID-shaped); a button naming anything else is no approval. */
const JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What a button carries: `hwa:a:<job id>` approves, `hwa:d:<job id>` denies (42 bytes; Telegram allows 64). */
export function approvalButtonData(decision: 'approve' | 'deny', jobId: string): string {
  return (decision === 'approve' ? APPROVE_PREFIX : DENY_PREFIX) + jobId;
}

/** The decision and job a button's data names, or undefined when it is no approval button of the gateway's. */
export function approvalOfButtonData(data: unknown): { decision: 'approve' | 'deny'; jobId: string } | undefined {
  if (typeof data !== 'string') return undefined;
  const decision = data.startsWith(APPROVE_PREFIX) ? 'approve' : data.startsWith(DENY_PREFIX) ? 'deny' : undefined;
  const jobId = data.slice(APPROVE_PREFIX.length);
  return decision && JOB_ID.test(jobId) ? { decision, jobId } : undefined;
}
