// The `openai` agent runner: a Chat Completions conversation, with an optional terminal tool loop.
import { isAbsolute, resolve } from 'node:path';
import { HookwiseError, type AgentResult, type AgentRunner, type AgentTask, type PluginContext } from '@hookwise/core';
import { ChatCompletionsClient } from './chat-client';
import type { ChatMessage, ChatRequest, ToolCall } from './chat-wire';
import type { OpenAIRunnerOptions } from './options';
import { buildSystemPrompt } from './system-prompt';
import { TERMINAL_TOOL_NAME, runTerminalCommand, terminalToolDefinition } from './terminal-tool';

export interface OpenAIRunnerDeps {
  /** Replaces the wait between retries (tests). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

// Gateway secrets that a terminal command has no business seeing (its output goes back to the model and may end up in the answer).
const HIDDEN_FROM_TERMINAL = ['WEBHOOK_SECRET'];

export function createOpenAIRunner(options: OpenAIRunnerOptions, ctx: PluginContext, deps: OpenAIRunnerDeps = {}): AgentRunner {
  const apiKey = ctx.env[options.api_key_env] || undefined;
  ctx.redact(apiKey);
  if (!apiKey) {
    ctx.logger.warn(`${options.api_key_env} is not set: requests to ${options.base_url} go without an Authorization header (fine for local servers such as Ollama; hosted APIs will answer 401)`);
  }
  const client = new ChatCompletionsClient({
    baseUrl: options.base_url,
    apiKey,
    apiKeyEnv: options.api_key_env,
    timeoutMs: options.timeout_seconds * 1000,
    maxRetries: options.max_retries,
    logger: ctx.logger,
    sleep: deps.sleep,
  });
  const terminal = options.tools.includes('terminal') ? terminalSettings(options, ctx) : undefined;
  if (terminal) {
    ctx.logger.warn(`the terminal tool is on: the model can run shell commands in ${terminal.cwd}${terminal.allow ? ` (allowed prefixes: ${terminal.allow.join(', ')})` : ' with no allowlist'}; webhook content is untrusted, run the gateway isolated (see docs/agents.md)`);
  }

  return {
    async run(task: AgentTask, { signal }): Promise<AgentResult> {
      const messages: ChatMessage[] = [
        { role: 'system', content: buildSystemPrompt(task.skills, { terminal: terminal && { cwd: terminal.cwd, timeoutSeconds: options.terminal.timeout_seconds, maxOutputBytes: terminal.maxOutputBytes, allow: terminal.allow } }) },
        { role: 'user', content: task.prompt },
      ];
      const meta = { route: task.route, delivery_id: task.deliveryId };
      for (let step = 1; step <= options.max_steps; step++) {
        const request: ChatRequest = { model: options.model, messages };
        if (options.temperature !== undefined) request.temperature = options.temperature;
        if (options.max_tokens !== undefined) request.max_tokens = options.max_tokens;
        if (terminal) {
          request.tools = [terminalToolDefinition];
          request.tool_choice = 'auto';
        }
        const response = await client.create(request, signal);
        const choice = response.choices[0];
        const calls = terminal ? (choice.message.tool_calls ?? []) : [];
        if (calls.length === 0) {
          const text = choice.message.content;
          if (typeof text !== 'string' || text.trim() === '') {
            const why = choice.message.refusal ? `it refused: ${choice.message.refusal}` : `finish_reason ${choice.finish_reason ?? 'unknown'}`;
            throw new HookwiseError('HW_E_AGENT', `the model returned no answer text (${why})`, { retryable: true });
          }
          if (choice.finish_reason === 'length') ctx.logger.warn(`the model's answer was cut by max_tokens (${options.max_tokens ?? 'server default'})`, meta);
          return { text };
        }
        // The assistant turn goes back exactly as it asked, then one `tool` message per call, in order.
        messages.push({ role: 'assistant', content: choice.message.content ?? null, tool_calls: calls });
        for (const call of calls) {
          const content = await executeCall(call, terminal!, signal);
          ctx.logger.info(`terminal tool call ${call.id} (step ${step}/${options.max_steps}) done`, meta);
          messages.push({ role: 'tool', tool_call_id: call.id, content });
        }
      }
      throw new HookwiseError(
        'HW_E_AGENT',
        `the model did not give a final answer within agent.max_steps (${options.max_steps}) requests; it kept calling tools. Raise max_steps or make the prompt or skill more specific`,
        { retryable: false },
      );
    },
  };
}

interface TerminalSettings {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  maxOutputBytes: number;
  allow?: string[];
}

function terminalSettings(options: OpenAIRunnerOptions, ctx: PluginContext): TerminalSettings {
  const t = options.terminal;
  const cwd = t.cwd ? (isAbsolute(t.cwd) ? t.cwd : resolve(ctx.configDir, t.cwd)) : ctx.configDir;
  const env: NodeJS.ProcessEnv = { ...ctx.env, HOOKWISE_HOME: ctx.configDir };
  for (const name of [options.api_key_env, ...HIDDEN_FROM_TERMINAL]) delete env[name];
  return { cwd, env, timeoutMs: t.timeout_seconds * 1000, maxOutputBytes: t.max_output_bytes, allow: t.allow };
}

async function executeCall(call: ToolCall, terminal: TerminalSettings, signal: AbortSignal): Promise<string> {
  if (call.function?.name !== TERMINAL_TOOL_NAME) return `error: there is no tool named ${JSON.stringify(call.function?.name)}; the only tool is ${TERMINAL_TOOL_NAME}`;
  let command: unknown;
  try {
    command = (JSON.parse(call.function.arguments || '{}') as { command?: unknown }).command;
  } catch {
    return 'error: the arguments were not valid JSON; call terminal with {"command": "<shell command>"}';
  }
  if (typeof command !== 'string' || command.trim() === '') return 'error: missing "command"; call terminal with {"command": "<shell command>"}';
  return runTerminalCommand(command, { ...terminal, signal });
}
