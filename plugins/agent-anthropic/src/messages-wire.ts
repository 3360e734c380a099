// The slice of the Anthropic Messages API wire format (POST {base_url}/v1/messages, anthropic-version 2023-06-01)
// this runner speaks: text and client tools, no streaming.

export interface TextBlock {
  type: 'text';
  text: string;
}

/** A system text block; `cache_control` makes the prompt up to it (tools, then system) a prompt-cache prefix. */
export interface SystemBlock extends TextBlock {
  cache_control?: { type: 'ephemeral' };
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  /** An object matching the tool's input_schema, as the model wrote it. */
  input: unknown;
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

/** Blocks the runner does not act on (thinking, server tools' results) go back to the API unchanged. */
export type ResponseBlock = TextBlock | ToolUseBlock | { type: string; [key: string]: unknown };

export type MessageParam = { role: 'user'; content: string | ToolResultBlock[] } | { role: 'assistant'; content: ResponseBlock[] };

export interface ToolParam {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  system?: string | SystemBlock[];
  messages: MessageParam[];
  temperature?: number;
  tools?: ToolParam[];
}

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded';

export interface MessagesResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model?: string;
  content: ResponseBlock[];
  stop_reason: StopReason | string | null;
  stop_sequence?: string | null;
  /** input_tokens leaves out the cache reads and writes, which have their own counts. */
  usage?: { input_tokens?: number; output_tokens?: number; cache_creation_input_tokens?: number | null; cache_read_input_tokens?: number | null };
}

/** `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_..."}` */
export interface ErrorBody {
  type?: 'error';
  error?: { type?: string; message?: string };
  request_id?: string;
}
