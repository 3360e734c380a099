// The tools an API runner offers its model (the terminal, MCP servers' tools): one definition shape for every
// provider's wire format, and one call path that turns every outcome into text the model reads.
import { errorMessage } from '@hookwise/core';

/** What the model is told about a tool; each runner maps it to its provider's shape. */
export interface AgentToolDefinition {
  /** Matches ^[a-zA-Z0-9_-]{1,64}$, which both Chat Completions functions and Anthropic tools accept. */
  name: string;
  description: string;
  /** A JSON Schema of `type: object`. */
  inputSchema: Record<string, unknown>;
}

export interface ToolOutcome {
  /** What goes back to the model. */
  content: string;
  /** The call failed (refused, bad input, the tool reported an error); Anthropic's tool_result says so as is_error. */
  isError: boolean;
}

export interface AgentToolHandler {
  definition: AgentToolDefinition;
  run(input: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome>;
}

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** The tools of one run; a call never throws, since what went wrong is something the model should read. */
export class AgentToolbox {
  private readonly handlers = new Map<string, AgentToolHandler>();

  constructor(handlers: readonly AgentToolHandler[]) {
    for (const handler of handlers) this.handlers.set(handler.definition.name, handler);
  }

  get definitions(): AgentToolDefinition[] {
    return [...this.handlers.values()].map((h) => h.definition);
  }

  get size(): number {
    return this.handlers.size;
  }

  /**
   * Runs the tool the model asked for. `input` is an object (Anthropic's tool_use) or a JSON text (Chat
   * Completions' arguments, which the model writes and may get wrong).
   */
  async call(name: string, input: unknown, signal: AbortSignal): Promise<ToolOutcome> {
    const handler = this.handlers.get(name);
    if (!handler) {
      const known = [...this.handlers.keys()].join(', ') || 'none';
      return { content: `error: there is no tool named ${JSON.stringify(name)}; the tools are: ${known}`, isError: true };
    }
    let args: unknown = input;
    if (typeof input === 'string') {
      try {
        args = input.trim() === '' ? {} : JSON.parse(input);
      } catch {
        return { content: `error: the arguments were not valid JSON; call ${name} with a JSON object matching its input schema`, isError: true };
      }
    }
    if (args === undefined || args === null) args = {};
    if (typeof args !== 'object' || Array.isArray(args)) {
      return { content: `error: the arguments must be a JSON object matching the input schema of ${name}`, isError: true };
    }
    try {
      return await handler.run(args as Record<string, unknown>, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      return { content: `error: ${name} failed: ${errorMessage(err)}`, isError: true };
    }
  }
}

/** Cuts text to at most `maxBytes` bytes of UTF-8 without splitting a character, saying so at the end. */
export function capToolOutput(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Back up to a character boundary: continuation bytes are 10xxxxxx.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return `${bytes.subarray(0, end).toString('utf8')}\n[output cut at ${maxBytes} bytes]`;
}
