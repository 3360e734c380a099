// What a runner keeps of a conversation between turns: the CLI session its last run returned
// (AgentResult.session, resumed by the command presets) and, for the API runners, the transcript of the messages,
// both in the store's memos next to the conversation's records (durable in SQLite, shared on Redis), kept as long
// as those records. The rendered history stays the prompt, so a runner that keeps nothing answers as before.
import type { AgentConversation, AgentResult, AgentTranscriptMessage, Job } from '@hookwise/core';
import { errorMessage } from '@hookwise/core';
import type { Logger } from 'winston';
import type { Route } from '../routes/routes';
import { clipTurnText, type PendingTurn } from './conversation-records';
import { limitsOf, type Conversations } from './conversations';
import { cleanText, promptHygieneOf } from '../jobs/prompt-hygiene';

/**
 * Most characters a transcript keeps (about 50,000 tokens at 4 characters a token): older turns are dropped first,
 * so a long conversation cannot outgrow the model's context or the memo.
 */
export const TRANSCRIPT_CHAR_LIMIT = 200_000;

export interface RunConversation {
  /** What the runner gets as AgentTask.conversation. */
  task: AgentConversation;
  /** After the run: keeps the session it returned for the next turn. Never throws (the answer is what matters). */
  finished(result: AgentResult): Promise<void>;
}

/** The conversation of a job on a route with conversations: the one its reply continues, else the one it starts. */
export async function runConversation(
  conversations: Conversations,
  route: Route,
  job: Pick<Job, 'id' | 'deliveryId'>,
  logger: Logger,
  turn: PendingTurn | undefined,
): Promise<RunConversation> {
  const id = turn?.conversation ?? job.id;
  const { keepMs } = limitsOf(route.conversation ?? {});
  const records = conversations.records;
  const meta = { route: route.name, delivery_id: job.deliveryId };
  const warn = (what: string, err: unknown) => logger.warn(`route '${route.name}': conversation ${id}: ${what}: ${errorMessage(err)}`, meta);
  let session: string | undefined;
  if (turn)
    session = await records.session(id).catch((err: unknown) => void warn('could not read the session of the last turn (the history is sent instead)', err));
  const clean = promptHygieneOf(route) ? cleanText : (text: string) => text;
  const task: AgentConversation = {
    id,
    turn: turn?.turn ?? 1,
    ...(session ? { session } : {}),
    ...(turn ? { message: `Reply from ${turn.from}:\n${clean(turn.text)}` } : {}),
    transcript: {
      load: () => records.transcript(id),
      save: (messages) => records.saveTranscript(id, boundTranscript(messages), keepMs),
    },
  };
  return {
    task,
    async finished(result) {
      if (typeof result.session !== 'string' || result.session === '' || result.session === session) return;
      await records
        .saveSession(id, result.session, keepMs)
        .catch((err: unknown) => warn('could not keep the session of this run (the next turn gets the history)', err));
    },
  };
}

/** The newest messages within TRANSCRIPT_CHAR_LIMIT, starting with a user message; each message clipped as turns are. */
export function boundTranscript(messages: readonly AgentTranscriptMessage[]): AgentTranscriptMessage[] {
  let kept = messages.map((m) => ({ role: m.role, content: clipTurnText(m.content) }));
  const size = (list: AgentTranscriptMessage[]) => list.reduce((sum, m) => sum + m.content.length, 0);
  while (kept.length > 2 && size(kept) > TRANSCRIPT_CHAR_LIMIT) kept = kept.slice(1);
  while (kept.length > 1 && kept[0].role !== 'user') kept = kept.slice(1);
  return kept;
}
