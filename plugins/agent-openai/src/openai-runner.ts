// The `openai` agent runner: a Chat Completions conversation, with a tool loop when the terminal or MCP servers are on.
import { HookwiseError, type AgentResult, type AgentRunner, type AgentTask, type PluginContext } from '@hookwise/core';
import {
  RunnerTools,
  addUsage,
  conversationTurn,
  fenceUntrusted,
  modelClientOptions,
  usageFromOpenAI,
  type AgentToolDefinition,
  type TokenUsage,
} from '@hookwise/agent-kit';
import { ChatCompletionsClient } from './chat-client';
import type { ChatMessage, ChatRequest, FunctionTool } from './chat-wire';
import type { OpenAIRunnerOptions } from './options';

export interface OpenAIRunnerDeps {
  /** Replaces the wait between retries (tests). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** The kit's tool definition as a Chat Completions function tool. */
export function functionTool(tool: AgentToolDefinition): FunctionTool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } };
}

export function createOpenAIRunner(options: OpenAIRunnerOptions, ctx: PluginContext, deps: OpenAIRunnerDeps = {}): AgentRunner {
  const client = new ChatCompletionsClient(
    modelClientOptions(
      options,
      ctx,
      `requests to ${options.base_url} go without an Authorization header (fine for local servers such as Ollama; hosted APIs will answer 401)`,
      deps.sleep,
    ),
  );
  const tools = new RunnerTools(options, ctx, [options.api_key_env]);

  return {
    async run(task: AgentTask, { signal }): Promise<AgentResult> {
      // Terminal commands and stdio MCP servers start inside the run's sandbox.
      const toolbox = tools.offers(task.sandbox) ? await tools.toolbox(signal, task.sandbox) : undefined;
      const meta = { route: task.route, delivery_id: task.deliveryId };
      // A conversation's earlier messages as the model saw them, kept by the gateway (./transcript), then what is new.
      const { kept, said, keep } = await conversationTurn(task, ctx.logger, meta);
      const messages: ChatMessage[] = [
        { role: 'system', content: tools.systemPrompt(task.skills) },
        // User texts between this run's own delimiters, which the system prompt's note explains.
        ...kept.map((m): ChatMessage => (m.role === 'user' ? { role: 'user', content: fenceUntrusted(m.content) } : { role: 'assistant', content: m.content })),
        { role: 'user', content: fenceUntrusted(said) },
      ];
      let usage: TokenUsage | undefined;
      for (let step = 1; step <= options.max_steps; step++) {
        const request: ChatRequest = { model: options.model, messages };
        if (options.temperature !== undefined) request.temperature = options.temperature;
        if (options.max_tokens !== undefined) request.max_tokens = options.max_tokens;
        if (toolbox?.size) {
          request.tools = toolbox.definitions.map(functionTool);
          request.tool_choice = 'auto';
        }
        const response = await client.create(request, signal);
        // Every request is paid for, the ones that only asked for a tool included.
        usage = addUsage(usage, usageFromOpenAI(response.usage));
        const choice = response.choices[0];
        const calls = toolbox?.size ? (choice.message.tool_calls ?? []) : [];
        if (calls.length === 0) {
          const text = choice.message.content;
          if (typeof text !== 'string' || text.trim() === '') {
            const why = choice.message.refusal ? `it refused: ${choice.message.refusal}` : `finish_reason ${choice.finish_reason ?? 'unknown'}`;
            throw new HookwiseError('HW_E_AGENT', `the model returned no answer text (${why})`, { retryable: true });
          }
          if (choice.finish_reason === 'length') ctx.logger.warn(`the model's answer was cut by max_tokens (${options.max_tokens ?? 'server default'})`, meta);
          await keep(text);
          return usage ? { text, usage } : { text };
        }
        // The assistant turn goes back exactly as it asked, then one `tool` message per call, in order.
        messages.push({ role: 'assistant', content: choice.message.content ?? null, tool_calls: calls });
        for (const call of calls) {
          const outcome = await toolbox!.call(call.function?.name, call.function?.arguments ?? '', signal);
          ctx.logger.info(
            `tool call ${call.id} (${call.function?.name}, step ${step}/${options.max_steps}) done${outcome.isError ? ' with an error' : ''}`,
            meta,
          );
          messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.content });
        }
      }
      throw new HookwiseError(
        'HW_E_AGENT',
        `the model did not give a final answer within agent.max_steps (${options.max_steps}) requests; it kept calling tools. Raise max_steps or make the prompt or skill more specific`,
        { retryable: false },
      );
    },
    sandboxNeeds: () => tools.sandboxNeeds(),
    stop: () => tools.stop(),
  };
}
