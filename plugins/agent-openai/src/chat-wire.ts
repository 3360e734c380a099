// The slice of the Chat Completions wire format (POST {base_url}/chat/completions) this runner speaks.

export interface ToolCall {
  id: string;
  type: 'function';
  /** `arguments` is a JSON-encoded string produced by the model; it may be invalid JSON. */
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface FunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  max_tokens?: number;
  tools?: FunctionTool[];
  tool_choice?: 'auto' | 'none';
}

export interface ChatResponse {
  id?: string;
  choices: Array<{
    index?: number;
    message: { role: 'assistant'; content: string | null; tool_calls?: ToolCall[]; refusal?: string | null };
    finish_reason?: string | null;
  }>;
  /** prompt_tokens counts cached tokens too; prompt_tokens_details.cached_tokens says how many (when the server caches). */
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } | null } | null;
}

/** Error body: `{"error": {"message", "type", "param", "code"}}`; compatible servers vary, so every field is optional. */
export interface ChatErrorBody {
  error?: { message?: string; type?: string; param?: string | null; code?: string | null } | string;
  message?: string;
}
