// Presets of the `command` runner for the common agent CLIs (`preset: claude | codex | gemini | opencode`): their
// non-interactive flags, how skills reach them, and the answer and token usage read from their JSON output.
// Each output format is the one the CLI documents (named at each preset); the prompt always goes on stdin,
// so no payload text can become an option.
import { HookwiseError, errorMessage, type AgentResult, type AgentTask } from '@hookwise/core';
import {
  UNTRUSTED_INPUT_NOTE,
  addUsage,
  fenceUntrusted,
  formatSkills,
  sumCounts,
  tokenCount,
  usageFromAnthropic,
  usageOrUndefined,
  type TokenUsage,
} from '@hookwise/agent-kit';
import { composePrompt } from './prompt-layout';
import { tomlString } from './toml-string';
export { tomlString } from './toml-string';
import { resumeArgs, resumedSession, sessionId } from './preset-resume';
import { failed, parseJsonLines, parseJsonOutput, record, type PresetFailure } from './preset-output';
import { claudeFailure, claudeResult, codexFailure, geminiError, opencodeError } from './preset-failures';
import type { PresetName } from './preset-name';
import { geminiProxySettings, opencodeProxyConfig } from './preset-home-files';

export interface CommandPreset {
  /** The CLI's name in docs and errors. */
  title: string;
  /** How a user installs it, for the message when it is missing. */
  install: string;
  /** The program and the arguments that make it run once, without questions, printing JSON. */
  command: readonly string[];
  /** After the user's `args` (e.g. codex's `-`: read the prompt from stdin). */
  tail?: readonly string[];
  /** Variables the CLI reads its credentials from: passed to it when the gateway has them. */
  env: readonly string[];
  /**
   * Arguments carrying the system-prompt text (the untrusted-input note and the skills) the way the CLI takes
   * it; undefined: the skills are laid out in the prompt on stdin (the `command` runner's layout).
   */
  systemPromptArgs?(text: string): string[];
  /**
   * Arguments that point the CLI at what the run's environment names (a model base URL), placed with the system
   * prompt; the environment is the one the CLI gets.
   */
  environmentArgs?(env: NodeJS.ProcessEnv): string[];
  /**
   * Files written into the route's private home before a run for what the run's environment names (./preset-home-files),
   * returning the variables that point the CLI at them.
   */
  homeFiles?(home: string, env: NodeJS.ProcessEnv): Record<string, string>;
  /** Reads stdout of a successful exit: the answer and the usage, or a HookwiseError saying what went wrong. */
  parse(stdout: string): AgentResult;
  /** What stdout says about a failed exit (the CLI's own error, and whether trying again can help), or undefined. */
  explain?(stdout: string): PresetFailure | undefined;
}

/** The text a preset passes as (part of) the CLI's system prompt. */
export function presetSystemPrompt(task: Pick<AgentTask, 'skills'>): string {
  const skills = formatSkills(task.skills);
  return skills ? `${UNTRUSTED_INPUT_NOTE}\n\n${skills}` : UNTRUSTED_INPUT_NOTE;
}

/**
 * The stdin text: the prompt fenced between this run's own delimiters (a fresh nonce per call, so per run), alone
 * when the skills went into the system prompt, else in the runner's layout after the skills.
 */
export function presetInput(preset: CommandPreset, task: Pick<AgentTask, 'prompt' | 'skills'>): string {
  const fenced = fenceUntrusted(task.prompt);
  return preset.systemPromptArgs ? fenced : composePrompt(fenced, task.skills);
}

/**
 * argv after the program: the preset's flags, its system prompt, the run's actions (./preset-actions), the user's
 * args, then its tail.
 */
export function presetArgs(
  preset: CommandPreset,
  programArgs: readonly string[],
  userArgs: readonly string[],
  task: Pick<AgentTask, 'skills'>,
  channelArgs: readonly string[] = [],
  resume: readonly string[] = [],
): string[] {
  const system = preset.systemPromptArgs ? preset.systemPromptArgs(presetSystemPrompt(task)) : [];
  return [...programArgs, ...system, ...channelArgs, ...userArgs, ...resume, ...(preset.tail ?? [])];
}

/**
 * Claude Code: `claude -p --output-format json`, prompt on stdin. Output (docs: "Run Claude Code programmatically",
 * code.claude.com/docs/en/headless, and the Agent SDK's SDKResultMessage): one object
 * `{"type":"result","subtype":"success","is_error":false,"result":"...","session_id":"...","total_cost_usd":...,
 * "usage":{"input_tokens","cache_creation_input_tokens","cache_read_input_tokens","output_tokens"}}`; with
 * --verbose a list of messages ending with that object. Skills: `--append-system-prompt` (print mode).
 */
const claude: CommandPreset = {
  title: 'Claude Code',
  install: 'npm install -g @anthropic-ai/claude-code',
  command: ['claude', '-p', '--output-format', 'json'],
  env: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN'],
  systemPromptArgs: (text) => ['--append-system-prompt', text],
  parse(stdout) {
    const result = claudeResult(parseJsonOutput('Claude Code', stdout));
    if (!result) throw failed('Claude Code', 'its JSON output has no "type": "result" object', false);
    const failure = claudeFailure(result);
    if (failure) throw failed('Claude Code', failure.text, failure.retryable);
    if (typeof result.result !== 'string') throw failed('Claude Code', 'its result object has no "result" text', false);
    const usage = usageFromAnthropic(result.usage);
    const session = sessionId(result.session_id); // resumed on the next turn of a conversation (./preset-resume)
    return { text: result.result, ...(usage && { usage }), ...(session && { session }) };
  },
  // Claude Code exits 1 on every error result: the result object says which.
  explain(stdout) {
    try {
      const result = claudeResult(JSON.parse(stdout.trim()));
      return result ? claudeFailure(result) : undefined;
    } catch {
      return undefined;
    }
  },
};

const codex: CommandPreset = {
  title: 'Codex',
  install: 'npm install -g @openai/codex',
  command: ['codex', 'exec', '--json', '--skip-git-repo-check'],
  tail: ['-'],
  env: ['CODEX_API_KEY', 'OPENAI_API_KEY'],
  systemPromptArgs: (text) => ['-c', `developer_instructions=${tomlString(text)}`],
  environmentArgs: codexProviderArgs,
  parse(stdout) {
    const events = parseJsonLines(stdout);
    let answer: string | undefined;
    let usage: TokenUsage | undefined;
    let session: string | undefined;
    for (const event of events) {
      const item = record(event.item);
      if (event.type === 'thread.started') session = sessionId(event.thread_id) ?? session;
      if (event.type === 'item.completed' && item.type === 'agent_message' && typeof item.text === 'string') answer = item.text;
      if (event.type === 'turn.completed') {
        const u = record(event.usage);
        usage = addUsage(
          usage,
          usageOrUndefined({
            inputTokens: tokenCount(u.input_tokens),
            outputTokens: tokenCount(u.output_tokens),
            cachedInputTokens: tokenCount(u.cached_input_tokens),
          }),
        );
      }
    }
    const problem = codexFailure(events);
    if (problem) throw failed('Codex', problem.text, problem.retryable);
    if (answer === undefined)
      throw failed(
        'Codex',
        events.length ? 'its JSON events have no agent_message item (no answer)' : 'printed no JSON events; is it a version without `exec --json`?',
        false,
      );
    return { text: answer, ...(usage && { usage }), ...(session && { session }) };
  },
  explain: (stdout) => codexFailure(parseJsonLines(stdout)),
};

/**
 * How the run ended: only the last turn's outcome counts. `error` events inside a turn that then completes are
 * passing trouble Codex recovered from ("Reconnecting... 2/5" while a stream is retried, a WebSocket falling back
 * to HTTPS); a turn.failed, or an error after which no turn completed, is the outcome.
 */
export const CODEX_PROVIDER = 'hookwise';

/**
 * Codex reads no base URL from the environment (0.171 ignores OPENAI_BASE_URL): a provider entry gets it, with the
 * key from the variable the run has, over plain HTTP streaming (a proxy rarely speaks the Responses WebSocket,
 * and trying it first costs seconds of retries per run).
 */
function codexProviderArgs(env: NodeJS.ProcessEnv): string[] {
  const url = env.OPENAI_BASE_URL;
  if (!url) return [];
  const key = env.CODEX_API_KEY ? 'CODEX_API_KEY' : 'OPENAI_API_KEY';
  const entry = `model_providers.${CODEX_PROVIDER}`;
  return [
    ...['-c', `model_provider=${tomlString(CODEX_PROVIDER)}`],
    ...['-c', `${entry}.name=${tomlString('Hookwise model endpoint')}`],
    ...['-c', `${entry}.base_url=${tomlString(url)}`],
    ...['-c', `${entry}.env_key=${tomlString(key)}`],
    ...['-c', `${entry}.wire_api=${tomlString('responses')}`],
    ...['-c', `${entry}.supports_websockets=false`],
  ];
}

/**
 * Gemini CLI: `gemini --output-format json`, prompt on stdin (headless mode: stdin is not a terminal). Output
 * (google-gemini/gemini-cli docs/cli/headless.md, "JSON output"): one object `{"response": "...", "stats":
 * {"models": {"<model>": {"tokens": {"prompt", "candidates", "total", "cached", "thoughts", "tool"}}}}}`, or
 * `{"error": {"type", "message", "code"}}`. `prompt` counts cached tokens; thoughts are output. Skills: in the
 * prompt (its only system prompt switch, GEMINI_SYSTEM_MD, replaces the whole built-in prompt).
 */
const gemini: CommandPreset = {
  title: 'Gemini CLI',
  install: 'npm install -g @google/gemini-cli',
  command: ['gemini', '--output-format', 'json'],
  env: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_CLOUD_PROJECT', 'GOOGLE_CLOUD_LOCATION', 'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_APPLICATION_CREDENTIALS'],
  // With the model proxy: GOOGLE_GEMINI_BASE_URL and the token as GEMINI_API_KEY, in the CLI's API-key mode.
  homeFiles: geminiProxySettings,
  parse(stdout) {
    const output = record(parseJsonOutput('Gemini CLI', stdout));
    const error = geminiError(output);
    if (error) throw failed('Gemini CLI', error, true);
    if (typeof output.response !== 'string') throw failed('Gemini CLI', 'its JSON output has no "response" text', false);
    const usage = geminiUsage(output.stats);
    return usage ? { text: output.response, usage } : { text: output.response };
  },
  explain(stdout) {
    try {
      const text = geminiError(record(JSON.parse(stdout.trim())));
      return text ? { text, retryable: true } : undefined;
    } catch {
      return undefined;
    }
  },
};

function geminiUsage(stats: unknown): TokenUsage | undefined {
  let usage: TokenUsage | undefined;
  for (const model of Object.values(record(record(stats).models))) {
    const t = record(record(model).tokens);
    usage = addUsage(
      usage,
      usageOrUndefined({
        inputTokens: sumCounts(t.prompt, t.tool),
        outputTokens: sumCounts(t.candidates, t.thoughts),
        cachedInputTokens: tokenCount(t.cached),
      }),
    );
  }
  return usage;
}

/**
 * opencode: `opencode run --format json`, message on stdin. Output (anomalyco/opencode, `run` command: "json (raw
 * JSON events)"): JSON Lines `{"type", "timestamp", "sessionID", "part"}`: step_start, text (`part.text`),
 * tool_use, step_finish (`part.tokens: {input, output, reasoning, cache: {read, write}}`, input without the
 * cache), error (`error.data.message`). The answer is the text of the last step that wrote any. Skills: in the
 * prompt (`run` has no system prompt option).
 */
const opencode: CommandPreset = {
  title: 'opencode',
  install: 'npm install -g opencode-ai',
  command: ['opencode', 'run', '--format', 'json'],
  env: [],
  // With the model proxy: a config file pointing its anthropic, openai and google providers at the proxy.
  homeFiles: opencodeProxyConfig,
  parse(stdout) {
    const events = parseJsonLines(stdout);
    let steps: string[][] = [[]];
    let usage: TokenUsage | undefined;
    for (const event of events) {
      const part = record(event.part);
      if (event.type === 'step_start') steps.push([]);
      else if (event.type === 'text' && typeof part.text === 'string') steps[steps.length - 1].push(part.text);
      else if (event.type === 'step_finish') {
        const t = record(part.tokens);
        const cache = record(t.cache);
        usage = addUsage(
          usage,
          usageOrUndefined({
            inputTokens: sumCounts(t.input, cache.read, cache.write),
            outputTokens: sumCounts(t.output, t.reasoning),
            cachedInputTokens: tokenCount(cache.read),
            cacheWriteTokens: tokenCount(cache.write),
          }),
        );
      }
    }
    steps = steps.filter((texts) => texts.some((t) => t.trim()));
    const problem = opencodeError(events);
    if (steps.length === 0)
      throw failed(
        'opencode',
        problem ?? (events.length ? 'its JSON events have no text (no answer)' : 'printed no JSON events; is it a version without `run --format json`?'),
        problem !== undefined,
      );
    const text = steps[steps.length - 1].join('\n');
    return usage ? { text, usage } : { text };
  },
  explain(stdout) {
    const text = opencodeError(parseJsonLines(stdout));
    return text ? { text, retryable: true } : undefined;
  },
};

export const PRESETS: Readonly<Record<PresetName, CommandPreset>> = { claude, codex, gemini, opencode };

/** The preset of `name`, or a non-retryable error listing the known ones (the schema normally catches this first). */
export function commandPreset(name: string): CommandPreset {
  const preset = (PRESETS as Record<string, CommandPreset | undefined>)[name];
  if (!preset)
    throw new HookwiseError('HW_E_AGENT', `agent.preset '${name}' is not known; the presets are ${Object.keys(PRESETS).join(', ')}`, { retryable: false });
  return preset;
}

/**
 * For a failed exit: what the preset's output says (`Claude Code: the model API refused the credentials ...`) and
 * whether trying again can help, without letting a parser problem hide the exit status.
 */
export function explainFailure(preset: CommandPreset, stdout: string): { text: string; retryable: boolean } {
  try {
    const why = preset.explain?.(stdout);
    return why ? { text: `: ${preset.title}: ${why.text}`, retryable: why.retryable } : { text: '', retryable: true };
  } catch (err) {
    return { text: `; (its output could not be read: ${errorMessage(err)})`, retryable: true };
  }
}

/** What the runner needs of a preset for one configuration: the program, and per task its argv and stdin. */
export interface PresetRun {
  preset: CommandPreset;
  program: string;
  /** `channelArgs`: what gives the CLI the run's actions (./preset-actions), placed before the user's args. */
  args(task: Pick<AgentTask, 'skills' | 'conversation'>, channelArgs?: readonly string[]): string[];
  input(task: Pick<AgentTask, 'prompt' | 'skills' | 'conversation'>): string;
  /** The CLI session this task resumes (./preset-resume), or undefined. */
  resumes(task: Pick<AgentTask, 'conversation'>): string | undefined;
}

/**
 * The preset of `options.preset`, or undefined. `options.command`, when set, replaces the preset's program (an
 * absolute path, or `["npx", "-y", "@anthropic-ai/claude-code"]`); `options.args` come after the preset's flags.
 */
export function presetRun(options: { preset?: string; command?: string[]; args?: string[]; cwd?: string }): PresetRun | undefined {
  if (!options.preset) return undefined;
  const preset = commandPreset(options.preset);
  const userArgs = options.args ?? [];
  if ([...(options.command ?? []), ...userArgs].some((a) => a.includes('{prompt}'))) {
    throw new HookwiseError(
      'HW_E_AGENT',
      `agent.preset ${options.preset}: the prompt always goes on stdin with a preset; remove {prompt} from agent.command and agent.args`,
      { retryable: false },
    );
  }
  const [defaultProgram, ...flags] = preset.command;
  const [program, ...programArgs] = options.command?.length ? options.command : [defaultProgram];
  // Resuming: the preset's resume arguments, and only the new reply on stdin (the session holds the rest).
  const resumes = (task: Pick<AgentTask, 'conversation'>) => resumedSession(options.preset as PresetName, task, options.cwd !== undefined);
  return {
    preset,
    program,
    resumes,
    args: (task, channelArgs) => {
      const session = resumes(task);
      return presetArgs(preset, [...programArgs, ...flags], userArgs, task, channelArgs, session ? resumeArgs(options.preset as PresetName, session) : []);
    },
    input: (task) => presetInput(preset, resumes(task) ? { ...task, prompt: task.conversation!.message! } : task),
  };
}
