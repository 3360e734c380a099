// MCP servers as tool sources for the API runners: connects (stdio command or streamable HTTP URL) with the
// official SDK on first use, lists each server's tools and calls them; one implementation for every runner.
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { HookwiseError, errorMessage, type AgentSandbox, type OptionsSchema, type PluginContext, type PluginLogger } from '@hookwise/core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { capToolOutput, TOOL_NAME_PATTERN, type AgentToolHandler, type ToolOutcome } from './agent-tools';
import { isSecretName } from '@hookwise/kit';

/** One entry of `mcp_servers:`: a command started over stdio, or a streamable HTTP endpoint. */
export interface McpServerOptions {
  /** Short name: tools are offered to the model as `<name>__<tool>`. */
  name: string;
  command?: string;
  args?: string[];
  /** Variables for the command, on top of the SDK's safe defaults (HOME, LOGNAME, PATH, SHELL, TERM, USER). */
  env?: Record<string, string>;
  /** Working directory of the command; relative paths are taken from the config dir. */
  cwd?: string;
  url?: string;
  /** Sent with every HTTP request (e.g. Authorization); values are scrubbed from logs. */
  headers?: Record<string, string>;
  /** Only these tools of the server are offered (by their MCP names); all when absent. */
  tools?: string[];
  /** Limit of one tool call (and of connecting). */
  timeout_seconds: number;
  /** What the model reads of one result is cut at this many bytes. */
  max_output_bytes: number;
}

export const mcpServersSchema: OptionsSchema = {
  type: 'array',
  default: [],
  description: 'MCP servers whose tools the model may call: { name, command, args, env } (stdio) or { name, url, headers } (streamable HTTP).',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    oneOf: [{ required: ['command'] }, { required: ['url'] }],
    properties: {
      name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,32}$' },
      command: { type: 'string', minLength: 1 },
      args: { type: 'array', items: { type: 'string' }, default: [] },
      env: { type: 'object', additionalProperties: { type: 'string' } },
      cwd: { type: 'string', minLength: 1 },
      url: { type: 'string', pattern: '^https?://' },
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      tools: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true },
      timeout_seconds: { type: 'number', exclusiveMinimum: 0, default: 60 },
      max_output_bytes: { type: 'integer', minimum: 1, default: 16384 },
    },
  },
};

/** The JSON shape of one MCP tool as tools/list returns it. */
interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** The result of tools/call: content blocks, or (older servers) a toolResult. */
interface McpCallResult {
  content?: Array<Record<string, unknown>>;
  structuredContent?: unknown;
  isError?: boolean;
  toolResult?: unknown;
}

interface Connection {
  client: Client;
  tools: McpToolInfo[];
}

/**
 * The configured values that are credentials: every header value (headers are how an HTTP server takes its
 * credentials), and an env value when its name marks a credential (GITHUB_TOKEN, BRAVE_API_KEY, ...), the same
 * rule that keeps such variables from child processes. The redactor scrubs whatever it is given at any length,
 * so settings such as PORT=8080 or DEBUG=1 are left out here rather than by a length.
 */
function credentialValues(server: McpServerOptions): string[] {
  const env = Object.entries(server.env ?? {}).filter(([name]) => isSecretName(name));
  return [...Object.values(server.headers ?? {}), ...env.map(([, value]) => value)];
}

/**
 * The MCP servers of one runner. Connections are opened on the first run that needs them and kept for the
 * next runs (a stdio server is one long-lived child); one that closes is opened again by the next run.
 * `close()` (the runner's stop) ends them all.
 */
export class McpServers {
  private readonly connections = new Map<string, Promise<Connection>>();
  private readonly logger: PluginLogger;

  constructor(
    readonly servers: readonly McpServerOptions[],
    private readonly ctx: Pick<PluginContext, 'logger' | 'configDir' | 'redact' | 'scrub'>,
    /** Told to servers in initialize, so their logs say who is calling. */
    private readonly clientInfo: { name: string; version: string } = { name: 'hookwise', version: '0.1.0' },
  ) {
    this.logger = ctx.logger;
    for (const server of servers) {
      for (const value of credentialValues(server)) ctx.redact(value);
    }
  }

  get size(): number {
    return this.servers.length;
  }

  /**
   * Every allowed tool of every server as a toolbox handler; connects to the servers not connected yet. With the
   * run's sandbox, a stdio server is started inside it for this run only and ended when the sandbox closes (it
   * must not outlive the run, see another job's files or keep the first run's work dir).
   */
  async tools(signal: AbortSignal, sandbox?: AgentSandbox): Promise<AgentToolHandler[]> {
    const handlers: AgentToolHandler[] = [];
    const taken = new Set<string>();
    for (const server of this.servers) {
      const perRun = sandbox && server.command ? this.openInRun(server, sandbox) : undefined;
      const connection = await whileRunning(perRun ?? this.connection(server), signal);
      const reach = perRun ? () => perRun : () => this.connection(server);
      for (const tool of connection.tools) {
        const name = uniqueToolName(server.name, tool.name, taken);
        taken.add(name);
        handlers.push({
          definition: {
            name,
            description: `${tool.description?.trim() || tool.name} (tool "${tool.name}" of the MCP server "${server.name}")`,
            inputSchema: tool.inputSchema && typeof tool.inputSchema === 'object' ? tool.inputSchema : { type: 'object' },
          },
          run: (input, runSignal) => this.call(server, reach, tool.name, input, runSignal),
        });
      }
    }
    return handlers;
  }

  /** Closes every connection (stdio servers are ended); the next `tools()` opens them again. */
  async close(): Promise<void> {
    const pending = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(
      pending.map(async (p) => {
        try {
          await (await p).client.close();
        } catch {
          /* a connection that never opened, or one already gone */
        }
      }),
    );
  }

  /** The open connection, or the one being opened; it outlives the run that opened it, so no run's signal ends it. */
  private connection(server: McpServerOptions): Promise<Connection> {
    let pending = this.connections.get(server.name);
    if (!pending) {
      pending = this.open(server);
      this.connections.set(server.name, pending);
      // A failed open is not cached: the next run tries again (the server may have been down for a moment).
      pending.catch(() => {
        if (this.connections.get(server.name) === pending) this.connections.delete(server.name);
      });
    }
    return pending;
  }

  /** A stdio server started in the run's sandbox; ended (with its whole sandboxed process) when the sandbox closes. */
  private openInRun(server: McpServerOptions, sandbox: AgentSandbox): Promise<Connection> {
    const opening = this.open(server, sandbox);
    sandbox.onClose(async () => {
      await (await opening.catch(() => undefined))?.client.close();
    });
    return opening;
  }

  private async open(server: McpServerOptions, sandbox?: AgentSandbox): Promise<Connection> {
    const { Client: ClientClass } = require('@modelcontextprotocol/sdk/client/index.js') as typeof import('@modelcontextprotocol/sdk/client/index.js');
    const client = new ClientClass(this.clientInfo, { capabilities: {} });
    const where = server.command ? `'${server.command}'` : describeUrl(server.url!);
    const transport = server.command ? this.stdioTransport(server, sandbox) : this.httpTransport(server);
    const timeout = server.timeout_seconds * 1000;
    try {
      await client.connect(transport, { timeout });
    } catch (err) {
      await client.close().catch(() => undefined);
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      throw new HookwiseError(
        'HW_E_AGENT',
        `MCP server '${server.name}' (${where}) could not be ${server.command ? 'started' : 'reached'}: ${errorMessage(err)}${missing ? '; check that the command is installed and on PATH (or give an absolute path)' : ''}`,
        { retryable: !missing, cause: err },
      );
    }
    client.onclose = () => {
      // The server went away (a crashed child, a closed HTTP session): the next run connects again.
      const current = this.connections.get(server.name);
      if (current)
        void current.then(
          (c) => c.client === client && this.connections.delete(server.name),
          () => undefined,
        );
    };
    const tools: McpToolInfo[] = [];
    try {
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { timeout });
        tools.push(...(page.tools as McpToolInfo[]));
        cursor = page.nextCursor;
      } while (cursor);
    } catch (err) {
      await client.close().catch(() => undefined);
      throw new HookwiseError('HW_E_AGENT', `MCP server '${server.name}' (${where}) did not list its tools: ${errorMessage(err)}`, {
        retryable: true,
        cause: err,
      });
    }
    const allowed = server.tools ? tools.filter((t) => server.tools!.includes(t.name)) : tools;
    if (server.tools) {
      const unknown = server.tools.filter((name) => !tools.some((t) => t.name === name));
      if (unknown.length)
        this.logger.warn(
          `MCP server '${server.name}' has no tool named ${unknown.map((n) => JSON.stringify(n)).join(', ')} (it offers ${tools.map((t) => t.name).join(', ') || 'none'})`,
        );
    }
    this.logger.info(`MCP server '${server.name}' connected: ${allowed.length} of its ${tools.length} tools offered to the model`);
    return { client, tools: allowed };
  }

  private stdioTransport(server: McpServerOptions, sandbox?: AgentSandbox): StdioClientTransport {
    const { StdioClientTransport: Transport, getDefaultEnvironment } =
      require('@modelcontextprotocol/sdk/client/stdio.js') as typeof import('@modelcontextprotocol/sdk/client/stdio.js');
    // Never the config dir: the configured cwd (relative to it), else the run's work dir, else the temp dir.
    const cwd = server.cwd ? resolve(this.ctx.configDir, server.cwd) : (sandbox?.workDir ?? tmpdir());
    // The environment the SDK would give the server (its safe defaults plus `env`), planned into the sandbox.
    const plan = sandbox
      ? sandbox.plan(server.command!, server.args ?? [], { ...getDefaultEnvironment(), ...server.env })
      : { command: server.command!, args: server.args ?? [], env: server.env, cwd };
    const env = plan.env as Record<string, string> | undefined;
    // stderr is piped into the log: inherited, a chatty server would write straight over the gateway's own output.
    const transport = new Transport({ command: plan.command, args: plan.args, env, cwd: plan.cwd, stderr: 'pipe' });
    let partial = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) this.logger.info(`[mcp ${server.name} stderr] ${line}`);
    });
    return transport;
  }

  private httpTransport(server: McpServerOptions): StreamableHTTPClientTransport {
    const { StreamableHTTPClientTransport: Transport } =
      require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    return new Transport(new URL(server.url!), { requestInit: { headers: { ...server.headers } } });
  }

  private async call(
    server: McpServerOptions,
    reach: () => Promise<Connection>,
    tool: string,
    input: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<ToolOutcome> {
    const { client } = await whileRunning(reach(), signal);
    let result: McpCallResult;
    try {
      result = (await client.callTool({ name: tool, arguments: input }, undefined, { signal, timeout: server.timeout_seconds * 1000 })) as McpCallResult;
    } catch (err) {
      if (signal.aborted) throw err;
      // Protocol errors (unknown tool, invalid arguments, timeout) are the model's to read and correct.
      return { content: `error: the MCP server '${server.name}' answered the call of ${tool} with an error: ${errorMessage(err)}`, isError: true };
    }
    const text = capToolOutput(renderCallResult(result), server.max_output_bytes);
    return { content: this.ctx.scrub ? this.ctx.scrub(text) : text, isError: result.isError === true };
  }
}

/** Waits for `promise` unless the run is stopped first: then a retryable error, the promise left to finish alone. */
function whileRunning<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  const stopped = () =>
    new HookwiseError('HW_E_AGENT', `stopped while connecting to MCP servers: ${errorMessage(signal.reason ?? 'aborted')}`, {
      retryable: true,
      cause: signal.reason,
    });
  if (signal.aborted) return Promise.reject(stopped());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(stopped());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** `<server>__<tool>` within the 64 characters and the characters every provider accepts; unique in the run. */
function uniqueToolName(server: string, tool: string, taken: ReadonlySet<string>): string {
  const base = `${server}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_');
  let name = base.slice(0, 64);
  for (let n = 2; taken.has(name) || !TOOL_NAME_PATTERN.test(name); n++) {
    const suffix = `_${n}`;
    name = `${base.slice(0, 64 - suffix.length)}${suffix}`;
  }
  return name;
}

/** The text the model reads: text blocks as they are, other content named (binary data is not shown). */
export function renderCallResult(result: McpCallResult): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        parts.push(String(block.text ?? ''));
        break;
      case 'image':
      case 'audio':
        parts.push(`[${block.type} (${String(block.mimeType ?? 'unknown type')}), ${String(block.data ?? '').length} characters of base64, not shown]`);
        break;
      case 'resource': {
        const resource = (block.resource ?? {}) as { uri?: string; text?: string; mimeType?: string };
        parts.push(
          typeof resource.text === 'string'
            ? `[resource ${resource.uri ?? ''}]\n${resource.text}`
            : `[resource ${resource.uri ?? ''} (${resource.mimeType ?? 'binary'}), not shown]`,
        );
        break;
      }
      case 'resource_link':
        parts.push(`[resource link: ${String(block.uri ?? '')}${block.name ? ` (${String(block.name)})` : ''}]`);
        break;
      default:
        parts.push(`[${String(block.type)} content]`);
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  if (parts.length === 0 && result.toolResult !== undefined)
    parts.push(typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult));
  const text = parts.join('\n');
  return result.isError ? `error: ${text || 'the tool reported an error'}` : text;
}

/** origin and path only: a query string may carry a key. */
function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return 'the configured url';
  }
}
