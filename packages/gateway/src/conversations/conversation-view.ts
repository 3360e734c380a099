// What `hookwise deliveries show`, GET /api/deliveries/:id and the dashboard's event page show of a job's
// conversation, read from the records in the memos (conversation-records.ts): the conversation the job
// started or continues, its turns so far and which of them the job answered.
import type { Job } from '@hookwise/core';
import type { ConversationRecords, Turn } from './conversation-records';

export interface ConversationView {
  id: string;
  /** The route it runs under (the route that delivered the first answer). */
  route: string;
  platform: string;
  chat: string;
  /** The answer this job gave or will give (1 = the job started the conversation). */
  turn: number;
  answers: number;
  turns: Turn[];
}

/** Longest text of one turn in a view: the whole turn stays in the records, a listing shows its start. */
const SHOWN_TEXT_LIMIT = 2000;

/**
 * The conversation of a job, or undefined for a job that is part of none (or whose records have expired). A job
 * that continues one has a pending turn under its route and delivery id; a job that started one names it.
 */
export async function conversationOfJob(records: ConversationRecords, job: Pick<Job, 'id' | 'route' | 'deliveryId'>): Promise<ConversationView | undefined> {
  const pending = await records.pending(job.route, job.deliveryId);
  const log = await records.log(pending?.conversation ?? job.id);
  if (!log) return undefined;
  const answered = log.jobs.indexOf(job.id);
  const turn = answered >= 0 ? answered + 1 : (pending?.turn ?? log.answers + 1);
  const turns = log.turns.map((t) => (t.text.length > SHOWN_TEXT_LIMIT ? { ...t, text: `${t.text.slice(0, SHOWN_TEXT_LIMIT)} [...]` } : t));
  // A reply still waiting for its run is not in the log yet: shown last, as what the job answers.
  if (pending && answered < 0) turns.push({ kind: 'reply', text: pending.text.slice(0, SHOWN_TEXT_LIMIT), at: pending.at, from: pending.from });
  return { id: log.id, route: log.route, platform: log.platform, chat: log.chat, turn, answers: log.answers, turns };
}

/** One line per turn, for a terminal: "reply 2026-01-01T00:00:00.000Z Telegram user 42 (Alice): why?". */
export function conversationLines(view: ConversationView): string[] {
  const head = `conversation ${view.id} on ${view.platform} chat ${view.chat} (route '${view.route}'): this job's answer is turn ${view.turn}, ${view.answers} answered so far`;
  return [head, ...view.turns.map((t) => `  ${turnLabel(t)} ${new Date(t.at).toISOString()}: ${oneLine(t.text)}`)];
}

export function turnLabel(turn: Turn): string {
  if (turn.kind === 'reply') return `reply from ${turn.from ?? 'someone'}`;
  return turn.kind === 'answer' ? 'answer' : 'event';
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}...` : flat;
}
