// The MCP SDK (~70 ms to import bundled, several times that on a busy machine) is loaded the first time
// a tool server is used, never at start-up; the HTTP and SSE transports only when such a server is used.

type ClientModule = typeof import('@modelcontextprotocol/sdk/client/index.js');
type HttpModule = typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
type SseModule = typeof import('@modelcontextprotocol/sdk/client/sse.js');

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load();
    loading.catch(() => (loading = undefined));
    return loading;
  };
}

export const loadClient = once<ClientModule['Client']>(async () => (await import('@modelcontextprotocol/sdk/client/index.js')).Client);
export const loadStreamableHttp = once<HttpModule['StreamableHTTPClientTransport']>(
  async () => (await import('@modelcontextprotocol/sdk/client/streamableHttp.js')).StreamableHTTPClientTransport,
);
export const loadSse = once<SseModule['SSEClientTransport']>(
  async () => (await import('@modelcontextprotocol/sdk/client/sse.js')).SSEClientTransport,
);

/** JSON-RPC error codes the SDK uses for its own failures. */
export const SDK_CONNECTION_CLOSED = -32000;
export const SDK_REQUEST_TIMEOUT = -32001;
