// The MCP SDK (~70 ms to import) is loaded the first time a tool server is used, never at start-up.

type ClientModule = typeof import('@modelcontextprotocol/sdk/client/index.js');
type HttpModule = typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
type SseModule = typeof import('@modelcontextprotocol/sdk/client/sse.js');
type StdioModule = typeof import('./stdio-transport.js');

export interface McpSdk {
  Client: ClientModule['Client'];
  StreamableHTTPClientTransport: HttpModule['StreamableHTTPClientTransport'];
  SSEClientTransport: SseModule['SSEClientTransport'];
  GuardedStdioTransport: StdioModule['GuardedStdioTransport'];
}

let loading: Promise<McpSdk> | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('./stdio-transport.js'),
  ]).then(([client, http, sse, stdio]) => ({
    Client: client.Client,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    SSEClientTransport: sse.SSEClientTransport,
    GuardedStdioTransport: stdio.GuardedStdioTransport,
  }));
  loading.catch(() => (loading = undefined));
  return loading;
}

/** JSON-RPC error codes the SDK uses for its own failures. */
export const SDK_CONNECTION_CLOSED = -32000;
export const SDK_REQUEST_TIMEOUT = -32001;
