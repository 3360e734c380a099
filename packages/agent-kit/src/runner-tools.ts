// What an API runner's options say about tools (`tools: [terminal]`, `terminal:`, `mcp_servers:`), turned into
// the toolbox of each run and the system prompt that describes it; shared so the runners behave alike.
import type { PluginContext, Skill } from '@hookwise/core';
import { buildSystemPrompt } from './agent-prompt';
import { AgentToolbox } from './agent-tools';
import { McpServers, type McpServerOptions } from './mcp-client';
import { terminalSettings, terminalTool, type TerminalOptions, type TerminalSettings } from './terminal-tool';

export interface RunnerToolOptions {
  tools: ReadonlyArray<'terminal'>;
  terminal: TerminalOptions;
  mcp_servers?: McpServerOptions[];
}

export class RunnerTools {
  readonly terminal?: TerminalSettings;
  readonly mcp?: McpServers;

  /** `hidden`: variables the terminal never gets unless terminal.env names them (the runner's API key). */
  constructor(options: RunnerToolOptions, ctx: PluginContext, hidden: readonly string[]) {
    if (options.tools.includes('terminal')) {
      this.terminal = terminalSettings(options.terminal, ctx, [...hidden, 'WEBHOOK_SECRET']);
      const t = this.terminal;
      ctx.logger.warn(
        `the terminal tool is on: the model can run shell commands in ${t.cwd}${t.allow ? ` (allowed prefixes: ${t.allow.join(', ')})` : ' with no allowlist'}; webhook content is untrusted, run the gateway isolated (see docs/agents.md)`,
      );
    }
    if (options.mcp_servers?.length) this.mcp = new McpServers(options.mcp_servers, ctx);
  }

  /** Whether the model is offered any tool at all (without tools, requests carry none). */
  get any(): boolean {
    return this.terminal !== undefined || this.mcp !== undefined;
  }

  systemPrompt(skills: readonly Skill[]): string {
    return buildSystemPrompt(skills, { terminal: this.terminal, mcpServers: this.mcp?.servers.map((s) => s.name) });
  }

  /** The tools of one run; MCP servers are connected on the first run that needs them. */
  async toolbox(signal: AbortSignal): Promise<AgentToolbox> {
    const handlers = [];
    if (this.terminal) handlers.push(terminalTool(this.terminal));
    if (this.mcp) handlers.push(...(await this.mcp.tools(signal)));
    return new AgentToolbox(handlers);
  }

  async stop(): Promise<void> {
    await this.mcp?.close();
  }
}
