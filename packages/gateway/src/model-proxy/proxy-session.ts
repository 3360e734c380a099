// One agent run's session on the model proxy: its token, what its model calls used and cost so far, and the cap that
// stopped it. The session is the run's RunAttachment (jobs/job-hooks.ts): it adds the proxy's address to the run's
// network, the proxy's URL and the token to every process's environment (and takes every model key out), and its
// count of tokens and dollars to the run's usage.
import type { AgentSandbox, AgentSandboxNeeds, AgentUsage } from '@hookwise/core';
import type { BudgetKeys, RunCap } from '../jobs/budget';
import type { RunAttachment } from '../jobs/job-hooks';
import type { Route } from '../routes/routes';
import type { CallTokens } from './model-prices';

/** Variables that hold a model credential in some CLI: never passed into a run that has the proxy. */
export const MODEL_KEY_VARIABLES = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'OPENAI_API_KEY',
  'CODEX_API_KEY',
  'AZURE_OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  // The AI SDK's Google provider (opencode's `google`) reads this one first.
  'GOOGLE_GENERATIVE_AI_API_KEY',
] as const;

export interface SessionFacts {
  route: Route;
  jobId: string;
  deliveryId: string;
  keys: BudgetKeys;
}

export class ProxySession implements RunAttachment {
  calls = 0;
  tokens: CallTokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  /** Dollars of the priced calls; unpriced ones (a model without a price) add nothing. */
  usd = 0;
  priced = false;
  /** The cap that refused a call: the job ends budget_exceeded. */
  cap?: RunCap;
  private closed = false;
  /** Upstream requests in flight, ended with the run. */
  readonly inFlight = new Set<() => void>();

  constructor(
    readonly facts: SessionFacts,
    private readonly address: { url: string; network: string; token: string },
    /** Variables of the gateway's own that hold the configured keys (also kept out of the run). */
    private readonly keyVariables: readonly string[],
    private readonly onClose: () => void,
  ) {}

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Adds one call's tokens and dollars. */
  add(tokens: CallTokens | undefined, usd: number | undefined): void {
    this.calls += 1;
    if (tokens) {
      this.tokens.input += tokens.input;
      this.tokens.output += tokens.output;
      this.tokens.cacheRead += tokens.cacheRead;
      this.tokens.cacheWrite += tokens.cacheWrite;
    }
    if (usd !== undefined) {
      this.usd += usd;
      this.priced = true;
    }
  }

  /** The variables every process of the run gets: the proxy's URL for each client library, and the run's token as its key. */
  env(): Record<string, string> {
    const { url, token } = this.address;
    return {
      HOOKWISE_MODEL_PROXY_URL: url,
      HOOKWISE_MODEL_PROXY_TOKEN: token,
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: token,
      OPENAI_BASE_URL: `${url}/v1`,
      OPENAI_API_KEY: token,
      // Read by Google's SDK (@google/genai) and the Gemini CLI; the CLI's gemini-api-key mode takes GEMINI_API_KEY.
      GOOGLE_GEMINI_BASE_URL: url,
      GEMINI_API_KEY: token,
    };
  }

  needs(needs: AgentSandboxNeeds | undefined): AgentSandboxNeeds {
    return { ...needs, network: [...(needs?.network ?? []), this.address.network] };
  }

  sandbox(sandbox: AgentSandbox): AgentSandbox {
    const withProxy = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
      const clean = { ...env };
      for (const name of [...MODEL_KEY_VARIABLES, ...this.keyVariables]) delete clean[name];
      return { ...clean, ...this.env() };
    };
    return {
      ...sandbox,
      plan: (command, args, env) => sandbox.plan(command, args, withProxy(env)),
      spawn: (command, args, env, stdio) => sandbox.spawn(command, args, withProxy(env), stdio),
    };
  }

  /** The proxy's count replaces the runner's own tokens (the same calls, read from the wire), with their cost. */
  usage(usage: AgentUsage | undefined): AgentUsage | undefined {
    if (this.calls === 0) return usage;
    return {
      ...usage,
      inputTokens: this.tokens.input,
      outputTokens: this.tokens.output,
      cachedInputTokens: this.tokens.cacheRead,
      cacheWriteTokens: this.tokens.cacheWrite,
      modelCalls: this.calls,
      ...(this.priced ? { costUsd: Math.round(this.usd * 1e6) / 1e6 } : {}),
    };
  }

  ending(): { outcome: 'budget_exceeded'; note: string } | undefined {
    return this.cap ? { outcome: 'budget_exceeded', note: this.cap.note } : undefined;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const end of this.inFlight) end();
    this.inFlight.clear();
    this.onClose();
  }
}
