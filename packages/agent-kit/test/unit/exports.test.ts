// Pins @hookwise/agent-kit's public API (what agent-runner authors use) and that it, alone of the kits, brings the
// MCP SDK: adding or removing a name is a decision that changes this list.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as agentKit from '@hookwise/agent-kit';

const PKG = join(__dirname, '..', '..');

const RUNTIME = [
  'AgentToolbox',
  'RunnerTools',
  'UNTRUSTED_INPUT_NOTE',
  'addUsage',
  'buildSystemPrompt',
  'buildSystemPromptParts',
  'conversationTurn',
  'fenceLines',
  'fenceUntrusted',
  'formatSkills',
  'mcpServersSchema',
  'modelClientOptions',
  'postModelRequest',
  'refusal',
  'retryAfterSecondsOf',
  'runTerminalCommand',
  'sumCounts',
  'terminalOptionsSchema',
  'terminalToolDefinition',
  'tokenCount',
  'usageFromAnthropic',
  'usageFromOpenAI',
  'usageOrUndefined',
];
const TYPE_ONLY = [
  'AgentToolDefinition',
  'AgentToolHandler',
  'ConversationTurn',
  'McpServerOptions',
  'McpServers',
  'ModelClientOptions',
  'ModelErrorResponse',
  'ModelRequestOptions',
  'ModelRunnerOptions',
  'RunnerToolOptions',
  'SystemPromptTools',
  'TerminalOptions',
  'TerminalRunOptions',
  'TerminalSettings',
  'TokenUsage',
  'ToolOutcome',
];

describe('@hookwise/agent-kit public API', () => {
  it('exports exactly these values at run time', () => {
    expect(Object.keys(agentKit).sort()).toEqual(RUNTIME);
  });

  it('exports exactly these types besides, from explicit lists', () => {
    const index = readFileSync(join(PKG, 'src', 'index.ts'), 'utf8');
    expect(index).not.toMatch(/^export \*/m);
    const names = new Set<string>();
    for (const [, list] of index.matchAll(/^export (?:type )?\{([^}]*)\} from '[^']+';$/gm)) {
      for (const item of list.split(',')) {
        const name = item.trim().replace(/^type\s+/, '');
        if (name) names.add(name);
      }
    }
    expect([...names].filter((name) => !RUNTIME.includes(name)).sort()).toEqual(TYPE_ONLY);
  });

  it('depends on the MCP SDK and on the root kit (agent runners: plugins -> agent-kit -> kit -> core)', () => {
    const pkg = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['@hookwise/core', '@hookwise/kit', '@modelcontextprotocol/sdk']);
  });
});
