// The official MCP SDK's server classes, loaded on first use: the SDK is an optional peer dependency of the gateway
// (the agent runners' @hookwise/agent-kit brings it), so a gateway that serves no MCP endpoint never loads it. Used
// by the job channel's tools and the MCP Events endpoint.

export type McpServerSdk = {
  server: typeof import('@modelcontextprotocol/sdk/server/index.js');
  http: typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  types: typeof import('@modelcontextprotocol/sdk/types.js');
};

let sdk: McpServerSdk | undefined;

/** The SDK, or an error saying that `needer` (e.g. "route actions") needs it and how to install it. */
export function loadMcpServerSdk(needer: string): McpServerSdk {
  try {
    sdk ??= {
      server: require('@modelcontextprotocol/sdk/server/index.js') as McpServerSdk['server'],
      http: require('@modelcontextprotocol/sdk/server/streamableHttp.js') as McpServerSdk['http'],
      types: require('@modelcontextprotocol/sdk/types.js') as McpServerSdk['types'],
    };
    return sdk;
  } catch (err) {
    throw new Error(
      `${needer} need the MCP SDK, which could not be loaded (${(err as Error).message}); install @modelcontextprotocol/sdk beside @hookwise/gateway (the hookwise CLI has it)`,
    );
  }
}
