// anthropic: asks a model server over HTTP: POSTs the prompt and the skills as JSON and answers with the reply's
// `text`. Replace the request and the reply with what Anthropic speaks.
import { HookwiseError, errorMessage, type AgentContribution, type AgentRunner, type PluginContext } from '@hookwise/core';
import { retryAfterFromHeaders } from '@hookwise/kit';

export interface AnthropicOptions {
  url: string;
  /** The environment variable holding the API key (never the key itself in config.yaml). */
  api_key_env: string;
  timeout_seconds: number;
}

const ID = 'anthropic';

export function createAnthropicRunner(options: AnthropicOptions, ctx: PluginContext): AgentRunner {
  const apiKey = ctx.env[options.api_key_env];
  ctx.redact(apiKey);
  return {
    async run(task, { signal }) {
      // Shutdown or the gateway's timeout: the job is tried again later.
      const stopped = () => new HookwiseError('HW_E_AGENT', `${ID}: stopped (${errorMessage(signal.reason ?? 'aborted')})`, { retryable: true });
      if (signal.aborted) throw stopped();
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;
      const body = JSON.stringify({ prompt: task.prompt, skills: task.skills.map((s) => ({ name: s.name, body: s.body })) });
      let res: Response;
      try {
        res = await fetch(options.url, { method: 'POST', headers, body, signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeout_seconds * 1000)]) });
      } catch (err) {
        if (signal.aborted) throw stopped();
        const what = err instanceof Error && err.name === 'TimeoutError' ? `no answer within timeout_seconds (${options.timeout_seconds}s)` : `cannot reach ${options.url}: ${errorMessage(err)}`;
        throw new HookwiseError('HW_E_AGENT', `${ID}: ${what}`, { retryable: true });
      }
      const reply = (await res.json().catch(() => undefined)) as { text?: unknown } | undefined;
      if (res.ok && typeof reply?.text === 'string') return { text: reply.text };
      // Throttling and server errors may clear; anything else (bad key, bad request) will not by waiting.
      const retryable = res.status === 429 || res.status >= 500;
      const hint = res.status === 401 || res.status === 403 ? `; check the key in ${options.api_key_env}` : '';
      throw new HookwiseError('HW_E_AGENT', `${ID}: ${options.url} answered ${res.status}${res.ok ? ' without a text field' : ''}${hint}`, {
        retryable,
        retryAfterSeconds: retryAfterFromHeaders(res.headers),
      });
    },
  };
}

export const anthropicRunner: AgentContribution<AnthropicOptions> = {
  kind: 'agent',
  id: ID,
  description: 'Asks Anthropic over HTTP.',
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      url: { type: 'string', pattern: '^https?://', description: 'Where the prompt is posted.' },
      api_key_env: { type: 'string', default: 'ANTHROPIC_API_KEY', description: 'Environment variable holding the API key.' },
      timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 3600, default: 120, description: 'Longest one request may take.' },
    },
  },
  create: createAnthropicRunner,
};
