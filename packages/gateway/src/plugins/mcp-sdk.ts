// The official MCP SDK, loaded on first use: the SDK is an optional peer dependency of the gateway (the agent
// runners' @hookwise/agent-kit brings it), so a gateway that serves no MCP endpoint and reads no MCP server never
// loads it. The server classes serve the job channel's tools and the MCP Events endpoint; the client classes
// subscribe the routes whose events come from another MCP Events server.

export type McpServerSdk = {
  server: typeof import('@modelcontextprotocol/sdk/server/index.js');
  http: typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  types: typeof import('@modelcontextprotocol/sdk/types.js');
};

export type McpClientSdk = {
  client: typeof import('@modelcontextprotocol/sdk/client/index.js');
  http: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  types: typeof import('@modelcontextprotocol/sdk/types.js');
};

let sdk: McpServerSdk | undefined;
let clientSdk: McpClientSdk | undefined;

/** What `load` returns, or an error saying that `needer` (e.g. "route actions") needs the SDK and how to install it. */
function loadOrExplain<T>(needer: string, load: () => T): T {
  try {
    return load();
  } catch (err) {
    throw new Error(
      `${needer} need the MCP SDK, which could not be loaded (${(err as Error).message}); install @modelcontextprotocol/sdk beside @hookwise/gateway (the hookwise CLI has it)`,
    );
  }
}

/** The SDK's server classes. */
export function loadMcpServerSdk(needer: string): McpServerSdk {
  sdk ??= loadOrExplain(needer, () => ({
    server: require('@modelcontextprotocol/sdk/server/index.js') as McpServerSdk['server'],
    http: require('@modelcontextprotocol/sdk/server/streamableHttp.js') as McpServerSdk['http'],
    types: require('@modelcontextprotocol/sdk/types.js') as McpServerSdk['types'],
  }));
  return sdk;
}

/** The SDK's client classes. */
export function loadMcpClientSdk(needer: string): McpClientSdk {
  clientSdk ??= loadOrExplain(needer, () => ({
    client: require('@modelcontextprotocol/sdk/client/index.js') as McpClientSdk['client'],
    http: require('@modelcontextprotocol/sdk/client/streamableHttp.js') as McpClientSdk['http'],
    types: require('@modelcontextprotocol/sdk/types.js') as McpClientSdk['types'],
  }));
  return clientSdk;
}
