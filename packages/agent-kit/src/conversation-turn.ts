// A conversation's transcript for the API runners: the gateway keeps the messages in its store
// (AgentTask.conversation.transcript); a continuing turn sends them and the new reply alone instead of the
// rendered history. Without a kept transcript (expired, or kept by no run yet) the prompt is sent as before.
import { errorMessage, type AgentTask, type AgentTranscriptMessage, type PluginLogger } from '@hookwise/core';

export interface ConversationTurn {
  /** The earlier messages, oldest first (raw texts: the runner fences user texts per run). */
  kept: AgentTranscriptMessage[];
  /** What the user says this turn: the new reply, or the prompt. */
  said: string;
  /** After the answer: the transcript with this turn saved. Never throws (a lost transcript means history next time). */
  keep(answer: string): Promise<void>;
}

export async function conversationTurn(
  task: Pick<AgentTask, 'prompt' | 'conversation'>,
  logger: PluginLogger,
  meta: Record<string, unknown>,
): Promise<ConversationTurn> {
  const transcript = task.conversation?.transcript;
  const warn = (what: string, err: unknown) =>
    logger.warn(`conversation ${task.conversation?.id}: could not ${what} its transcript (the history goes in the prompt instead): ${errorMessage(err)}`, meta);
  let kept: AgentTranscriptMessage[] = [];
  if (transcript && task.conversation?.message) kept = await transcript.load().catch((err: unknown) => (warn('read', err), []));
  const said = kept.length ? task.conversation!.message! : task.prompt;
  return {
    kept,
    said,
    keep: async (answer) => {
      if (!transcript) return;
      await transcript.save([...kept, { role: 'user', content: said }, { role: 'assistant', content: answer }]).catch((err: unknown) => warn('save', err));
    },
  };
}
