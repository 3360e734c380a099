// What an API runner's options say about tools (`tools: [terminal]`, `terminal:`, `mcp_servers:`), turned into
// the toolbox of each run and the system prompt that describes it; shared so the runners behave alike.
import type { AgentSandbox, AgentSandboxNeeds, PluginContext, Skill } from '@hookwise/core';
import { buildSystemPrompt, buildSystemPromptParts, type SystemPromptTools } from './agent-prompt';
import { AgentToolbox } from './agent-tools';
import { McpServers, type McpServerOptions } from './mcp-client';
import { jobChannelServer } from './job-channel-tools';
import { terminalSandboxNeeds, terminalSettings, terminalTool, type TerminalOptions, type TerminalSettings } from './terminal-tool';

export interface RunnerToolOptions {
  tools: ReadonlyArray<'terminal'>;
  terminal: TerminalOptions;
  mcp_servers?: McpServerOptions[];
}

export class RunnerTools {
  readonly terminal?: TerminalSettings;
  readonly mcp?: McpServers;

  /** `hidden`: variables the terminal never gets unless terminal.env names them (the runner's API key). */
  constructor(
    options: RunnerToolOptions,
    private readonly ctx: PluginContext,
    hidden: readonly string[],
  ) {
    if (options.tools.includes('terminal')) {
      this.terminal = terminalSettings(options.terminal, ctx, [...hidden, 'WEBHOOK_SECRET']);
      const t = this.terminal;
      ctx.logger.warn(
        `the terminal tool is on: the model can run shell commands in ${t.cwd ?? "each run's work dir"}${t.allow ? ` (allowed whole commands: ${t.allow.join(', ')})` : ' with no allowlist'}, inside the run's sandbox (agent.sandbox; see docs/agents.md); webhook content is untrusted`,
      );
    }
    if (options.mcp_servers?.length) this.mcp = new McpServers(options.mcp_servers, ctx);
  }

  /** Whether the model is offered any tool at all (without tools, requests carry none). */
  get any(): boolean {
    return this.terminal !== undefined || this.mcp !== undefined;
  }

  private get promptTools(): SystemPromptTools {
    return { terminal: this.terminal, mcpServers: this.mcp?.servers.map((s) => s.name) };
  }

  systemPrompt(skills: readonly Skill[]): string {
    return buildSystemPrompt(skills, this.promptTools);
  }

  /** The run's system prompt in two parts: what every run of the route shares, then the run's own (./agent-prompt). */
  systemPromptParts(skills: readonly Skill[]): { stable: string; perRun: string } {
    return buildSystemPromptParts(skills, this.promptTools);
  }

  /** Whether this run's model is offered tools: the configured ones, or the actions of its job channel. */
  offers(sandbox?: AgentSandbox): boolean {
    return this.any || jobChannelServer(sandbox) !== undefined;
  }

  /** What the run's sandbox must offer these tools (the terminal's configured cwd as the work dir). */
  sandboxNeeds(): AgentSandboxNeeds {
    return this.terminal ? terminalSandboxNeeds(this.terminal) : {};
  }

  /**
   * The tools of one run. With the run's sandbox (AgentTask.sandbox) every terminal command and every stdio MCP
   * server starts inside it (the servers once per run, ended with it); HTTP MCP servers are connected once.
   */
  async toolbox(signal: AbortSignal, sandbox?: AgentSandbox): Promise<AgentToolbox> {
    const handlers = [];
    if (this.terminal) handlers.push(terminalTool(this.terminal, sandbox));
    if (this.mcp) handlers.push(...(await this.mcp.tools(signal, sandbox)));
    // The route's actions (the job channel's MCP endpoint), connected for this run and closed with it.
    const channel = jobChannelServer(sandbox);
    if (channel && sandbox) {
      const servers = new McpServers([channel], this.ctx);
      sandbox.onClose(() => servers.close());
      handlers.push(...(await servers.tools(signal)));
    }
    return new AgentToolbox(handlers);
  }

  async stop(): Promise<void> {
    await this.mcp?.close();
  }
}
