// The `anthropic` agent runner: a Messages API conversation with native tool use (the terminal, MCP servers'
// tools), looping while the model stops for tool_use; usage summed over every request.
import { HookwiseError, type AgentResult, type AgentRunner, type AgentTask, type PluginContext } from '@hookwise/core';
import {
  RunnerTools,
  addUsage,
  conversationTurn,
  fenceUntrusted,
  modelClientOptions,
  usageFromAnthropic,
  type AgentToolbox,
  type TokenUsage,
} from '@hookwise/agent-kit';
import { MessagesClient } from './messages-client';
import type { MessageParam, MessagesRequest, ResponseBlock, SystemBlock, TextBlock, ToolResultBlock, ToolUseBlock } from './messages-wire';
import type { AnthropicRunnerOptions } from './options';

export interface AnthropicRunnerDeps {
  /** Replaces the wait between retries (tests). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const isText = (b: ResponseBlock): b is TextBlock => b.type === 'text' && typeof (b as TextBlock).text === 'string';
const isToolUse = (b: ResponseBlock): b is ToolUseBlock => b.type === 'tool_use';

/**
 * The system prompt as Anthropic's prompt cache wants it: the part every run of the route shares ends with a
 * `cache_control` breakpoint, so that the tools and it (the prompt's start) are cached and read back by the route's
 * next runs at a tenth of the input price; the run's own part (its skills' directories) and the messages follow.
 */
export function systemBlocks({ stable, perRun }: { stable: string; perRun: string }): SystemBlock[] {
  const blocks: SystemBlock[] = [{ type: 'text', text: stable, cache_control: { type: 'ephemeral' } }];
  if (perRun) blocks.push({ type: 'text', text: perRun });
  return blocks;
}

export function createAnthropicRunner(options: AnthropicRunnerOptions, ctx: PluginContext, deps: AnthropicRunnerDeps = {}): AgentRunner {
  const client = new MessagesClient(
    modelClientOptions(options, ctx, `requests to ${options.base_url} go without an x-api-key header and the Anthropic API will answer 401`, deps.sleep),
  );
  const tools = new RunnerTools(options, ctx, [options.api_key_env]);

  return {
    async run(task: AgentTask, { signal }): Promise<AgentResult> {
      // Terminal commands and stdio MCP servers start inside the run's sandbox.
      const toolbox = tools.offers(task.sandbox) ? await tools.toolbox(signal, task.sandbox) : undefined;
      const system = systemBlocks(tools.systemPromptParts(task.skills));
      const meta = { route: task.route, delivery_id: task.deliveryId };
      // A conversation's earlier messages as the model saw them, kept by the gateway (./transcript), then what is new.
      const { kept, said, keep } = await conversationTurn(task, ctx.logger, meta);
      // User texts between this run's own delimiters, which the system prompt's note explains.
      const messages: MessageParam[] = [
        ...kept.map((m): MessageParam =>
          m.role === 'user' ? { role: 'user', content: fenceUntrusted(m.content) } : { role: 'assistant', content: [{ type: 'text', text: m.content }] },
        ),
        { role: 'user', content: fenceUntrusted(said) },
      ];
      let usage: TokenUsage | undefined;
      const result = async (text: string): Promise<AgentResult> => {
        await keep(text);
        return usage ? { text, usage } : { text };
      };
      for (let step = 1; step <= options.max_steps; step++) {
        const request: MessagesRequest = { model: options.model, max_tokens: options.max_tokens, system, messages };
        if (options.temperature !== undefined) request.temperature = options.temperature;
        if (toolbox?.size) request.tools = toolbox.definitions.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
        const response = await client.create(request, signal);
        usage = addUsage(usage, usageFromAnthropic(response.usage));
        const text = response.content
          .filter(isText)
          .map((b) => b.text)
          .join('');
        const toolUses = response.content.filter(isToolUse);
        switch (response.stop_reason) {
          case 'tool_use': {
            if (!toolbox?.size || toolUses.length === 0) {
              throw new HookwiseError('HW_E_AGENT', `the model stopped for tool_use but ${toolbox?.size ? 'sent no tool_use block' : 'was offered no tools'}`, {
                retryable: true,
              });
            }
            // The assistant turn goes back as it came (text, thinking and tool_use blocks), then one result per call.
            messages.push({ role: 'assistant', content: response.content });
            messages.push({
              role: 'user',
              content: await runTools(toolUses, toolbox, signal, (line) => ctx.logger.info(`${line} (step ${step}/${options.max_steps})`, meta)),
            });
            continue;
          }
          case 'pause_turn':
            // A long turn the API paused: sending it back as it is lets the model go on where it stopped.
            messages.push({ role: 'assistant', content: response.content });
            continue;
          case 'max_tokens':
          case 'model_context_window_exceeded': {
            const limit = response.stop_reason === 'max_tokens' ? `agent.max_tokens (${options.max_tokens})` : "the model's context window";
            if (toolUses.length > 0 || text.trim() === '') {
              throw new HookwiseError(
                'HW_E_AGENT',
                `the model's answer was cut by ${limit} ${toolUses.length ? 'in the middle of a tool call' : 'before any text'}; raise agent.max_tokens or shorten the prompt`,
                { retryable: false },
              );
            }
            ctx.logger.warn(`the model's answer was cut by ${limit}`, meta);
            return result(text);
          }
          case 'refusal':
            throw new HookwiseError('HW_E_AGENT', `the model declined to answer (stop_reason refusal)${text.trim() ? `: ${text.trim().slice(0, 300)}` : ''}`, {
              retryable: false,
            });
          default:
            // end_turn, stop_sequence, and reasons newer than this runner: the text is the answer.
            if (text.trim() === '')
              throw new HookwiseError('HW_E_AGENT', `the model returned no answer text (stop_reason ${response.stop_reason ?? 'null'})`, { retryable: true });
            return result(text);
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

/** Runs the calls one after the other, in order; every tool_use gets its tool_result. */
async function runTools(calls: readonly ToolUseBlock[], toolbox: AgentToolbox, signal: AbortSignal, log: (line: string) => void): Promise<ToolResultBlock[]> {
  const results: ToolResultBlock[] = [];
  for (const call of calls) {
    const outcome = await toolbox.call(call.name, call.input, signal);
    log(`tool call ${call.id} (${call.name}) done${outcome.isError ? ' with an error' : ''}`);
    const block: ToolResultBlock = { type: 'tool_result', tool_use_id: call.id, content: outcome.content };
    if (outcome.isError) block.is_error = true;
    results.push(block);
  }
  return results;
}
