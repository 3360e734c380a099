// What each agent CLI's output says of a failed or refused run, read from the shapes the CLIs document: Claude
// Code's result object (is_error, subtype, the API status), Codex's last turn, Gemini's and opencode's error events.
// A failure names whether trying again can help (a turn or budget limit, a refused key or a 4xx never do).
import type { PresetFailure } from './preset-output';
import { tokenCount } from '@hookwise/agent-kit';
import { AUTH_FAILURE, permanentStatus, record, statusIn } from './preset-output';

export function claudeResult(output: unknown): Record<string, unknown> | undefined {
  const candidates = Array.isArray(output) ? [...output].reverse() : [output];
  return candidates.map(record).find((m) => m.type === 'result');
}

export function claudeErrorText(result: Record<string, unknown>): string {
  const errors = Array.isArray(result.errors) ? result.errors.filter((e) => typeof e === 'string') : [];
  const text = errors.length ? errors.join('; ') : typeof result.result === 'string' ? result.result : '';
  return text.slice(0, 500);
}

/**
 * What an error result means (SDKResultMessage: `subtype` error_max_turns, error_max_budget_usd,
 * error_during_execution, ...; an API error is `subtype: "success"` with `is_error: true`, the API's message in
 * `result` and its status in `api_error_status`), or undefined for a success. Turn and budget limits, a refused
 * key and a 4xx end the same way again; an overloaded or failing API (429, 529, 5xx) and a dropped connection may
 * clear.
 */
export function claudeFailure(result: Record<string, unknown>): PresetFailure | undefined {
  const subtype = typeof result.subtype === 'string' ? result.subtype : undefined;
  if (result.is_error !== true && (subtype === undefined || subtype === 'success')) return undefined;
  const detail = claudeErrorText(result);
  const said = detail ? `: ${detail}` : '';
  if (subtype === 'error_max_turns')
    return { text: `the run reached its turn limit (--max-turns) before answering${said}; raise it in agent.args or simplify the task`, retryable: false };
  if (subtype === 'error_max_budget_usd')
    return { text: `the run reached its budget (--max-budget-usd) before answering${said}; raise it in agent.args`, retryable: false };
  const status = tokenCount(result.api_error_status) ?? statusIn(detail);
  const type = typeof result.api_error_type === 'string' ? result.api_error_type : undefined;
  const refused = type === 'authentication_error' || type === 'permission_error' || status === 401 || status === 403;
  if (refused || (status === undefined && subtype !== 'error_during_execution' && AUTH_FAILURE.test(detail)))
    return {
      text: `the model API refused the credentials${status ? ` (HTTP ${status})` : ''}${said}; check ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN in the gateway's environment (or what its model proxy gives out)`,
      retryable: false,
    };
  if (status !== undefined) return { text: `the model API answered HTTP ${status}${said}`, retryable: !permanentStatus(status) };
  if (subtype === 'error_during_execution') return { text: `the run failed during execution${said}`, retryable: true };
  return { text: `the run ended with an error${subtype && subtype !== 'success' ? ` (${subtype})` : ''}${said}`, retryable: true };
}

/**
 * OpenAI Codex CLI: `codex exec --json --skip-git-repo-check -` (`-`: instructions from stdin). Output (openai/codex
 * docs/exec.md, "JSON output mode", and codex-rs/exec/src/exec_events.rs): JSON Lines of thread.started,
 * turn.started, item.* (the answer is the last `agent_message` item's `text`), turn.completed with
 * `usage: {input_tokens, cached_input_tokens, output_tokens}` (cached is part of input), turn.failed / error
 * with a message. Skills: `-c developer_instructions="..."` (config-reference: "Additional developer
 * instructions injected into the session"), a TOML string.
 */
export function codexFailure(events: ReadonlyArray<Record<string, unknown>>): PresetFailure | undefined {
  let last: Record<string, unknown> | undefined;
  for (const event of events) {
    if (event.type === 'turn.started') last = undefined;
    else if (event.type === 'turn.completed' || event.type === 'turn.failed' || event.type === 'error') last = event;
  }
  if (!last || last.type === 'turn.completed') return undefined;
  const message = String(last.type === 'turn.failed' ? (record(last.error).message ?? 'no message') : (last.message ?? 'no message')).slice(0, 500);
  const status = statusIn(message);
  if (status === 401 || status === 403 || (status === undefined && AUTH_FAILURE.test(message)))
    return {
      text: `the model API refused the credentials: ${message}; check CODEX_API_KEY or OPENAI_API_KEY in the gateway's environment (or what its model proxy gives out)`,
      retryable: false,
    };
  return { text: `${last.type === 'turn.failed' ? 'the turn failed' : 'error'}: ${message}`, retryable: !permanentStatus(status) };
}

/** The model provider a Codex run talks to when the run's environment names a base URL (a proxy, a stand-in). */
export function geminiError(output: Record<string, unknown>): string | undefined {
  if (!output.error) return undefined;
  const error = record(output.error);
  return `${String(error.type ?? 'error')}: ${String(error.message ?? 'no message')}${error.code !== undefined ? ` (code ${String(error.code)})` : ''}`;
}

export function opencodeError(events: ReadonlyArray<Record<string, unknown>>): string | undefined {
  const errors = events
    .filter((e) => e.type === 'error')
    .map((e) => {
      const error = record(e.error);
      return String(record(error.data).message ?? error.name ?? 'error');
    });
  return errors.length ? errors.join('; ') : undefined;
}
