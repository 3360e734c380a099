// Resuming a CLI's own session on the next turn of a conversation: the gateway passes back the session
// id the last run printed (AgentResult.session) and the new reply alone (AgentTask.conversation.message); the
// preset then resumes the session and sends only the reply. Claude Code: `--resume <session_id>` (its JSON result
// carries `session_id`); Codex: `codex exec ... resume <thread_id> -` (docs/exec.md, "Resuming non-interactive
// sessions"; `thread.started` carries `thread_id`). Gemini CLI and opencode get the rendered history as before.
import { isHookwiseError, type AgentRunner, type AgentTask, type PluginLogger } from '@hookwise/core';
import type { PresetName } from './preset-name';

/**
 * Claude Code finds a session under the directory it was started in (~/.claude/projects/<cwd>), so it resumes
 * only with a fixed agent.cwd; without one every run gets a fresh work dir and the history is sent instead.
 * Codex keeps its sessions by id (~/.codex/sessions), whatever the directory.
 */
const NEEDS_FIXED_DIR: Record<PresetName, boolean> = { claude: true, codex: false, gemini: false, opencode: false };

/** A session id as it may go into argv: no option look-alike, nothing but id characters. */
export function sessionId(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/.test(value) ? value : undefined;
}

/** The session this run resumes, or undefined: the preset cannot, there is none, or no new message to send. */
export function resumedSession(preset: PresetName, task: Pick<AgentTask, 'conversation'>, fixedDir: boolean): string | undefined {
  const conversation = task.conversation;
  if (!resumeArgs(preset, 'x').length || (NEEDS_FIXED_DIR[preset] && !fixedDir) || !conversation?.message) return undefined;
  return sessionId(conversation.session);
}

/** The arguments that resume `session`, placed before the preset's tail (codex's `-`: the prompt from stdin). */
export function resumeArgs(preset: PresetName, session: string): string[] {
  if (preset === 'claude') return ['--resume', session];
  if (preset === 'codex') return ['resume', session];
  return [];
}

/**
 * A resumed run whose CLI exits with an error (the session is gone: another host's gateway ran the last turn, the
 * CLI's files were cleaned up) runs once more without the session, with the rendered history, so the conversation
 * goes on. Timeouts and shutdown are not replayed.
 */
export function replayingFailedResume(runner: AgentRunner, resumes: (task: AgentTask) => boolean, title: string, logger: PluginLogger): AgentRunner {
  return {
    ...runner,
    async run(task, opts) {
      if (!resumes(task)) return runner.run(task, opts);
      try {
        return await runner.run(task, opts);
      } catch (err) {
        if (opts.signal.aborted || !isHookwiseError(err) || err.code !== 'HW_E_AGENT' || err.details?.exitCode === undefined) throw err;
        logger.warn(
          `${title} could not resume session ${task.conversation?.session} (${err.message.slice(0, 300)}); running again with the conversation's history`,
          {
            route: task.route,
            delivery_id: task.deliveryId,
          },
        );
        const { session: _dropped, ...conversation } = task.conversation!;
        return runner.run({ ...task, conversation }, opts);
      }
    },
  };
}
