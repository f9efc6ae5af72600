import type { StdioExit } from './stdio-transport.js';

/** Errors that already carry the sentence shown to the user (status endpoint, tool results). */
export class ToolServerError extends Error {
  constructor(
    message: string,
    readonly kind: 'not_found' | 'exited' | 'http' | 'timeout' | 'config' | 'connect' | 'protocol' | 'auth',
  ) {
    super(message);
  }
}

/** The command was not on the PATH the server would have been started with. */
export function describeNotFound(command: string, searched: string[]): ToolServerError {
  const where = searched.length > 0 ? `searched ${searched.join(process.platform === 'win32' ? ';' : ':')}` : 'PATH is empty';
  return new ToolServerError(`command not found: ${command} (${where})`, 'not_found');
}

function lastLines(lines: string[], n = 5): string {
  const tail = lines
    .filter((l) => l.trim())
    .slice(-n)
    .join('\n');
  return tail ? `; last stderr lines:\n${tail}` : '';
}

/** A stdio server that stopped: why, in words (command not found, exit code N + stderr). */
export function describeExit(command: string, exit: StdioExit | undefined, stderr: string[]): ToolServerError {
  if (exit?.spawnError) {
    const code = exit.spawnError.code;
    if (code === 'ENOENT') return new ToolServerError(`command not found: ${command}`, 'not_found');
    if (code === 'EACCES') return new ToolServerError(`command is not executable: ${command}`, 'not_found');
    return new ToolServerError(`could not start ${command}: ${exit.spawnError.message}`, 'exited');
  }
  // Exit codes of the guard shell (orphan-guard.ts) when it cannot run the command.
  if (exit?.code === 127 && stderr.some((l) => /not found|No such file/i.test(l))) {
    return new ToolServerError(`command not found: ${command}`, 'not_found');
  }
  if (exit?.code === 126) return new ToolServerError(`command is not executable: ${command}${lastLines(stderr)}`, 'not_found');
  if (exit?.signal) return new ToolServerError(`the server was stopped by ${exit.signal}${lastLines(stderr)}`, 'exited');
  if (exit?.code !== undefined && exit.code !== null) {
    // 128+N is how the guard shell reports a server killed by signal N.
    const how = exit.code > 128 && exit.code < 160 ? `was killed by signal ${exit.code - 128}` : `exited with code ${exit.code}`;
    return new ToolServerError(`the server ${how}${lastLines(stderr)}`, 'exited');
  }
  return new ToolServerError(`the server closed its connection${lastLines(stderr)}`, 'exited');
}

function causeCode(err: unknown): string | undefined {
  let e = err as { code?: unknown; cause?: unknown } | undefined;
  for (let i = 0; i < 4 && e; i++) {
    if (typeof e.code === 'string') return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

/** The URL as errors and logs show it: no user info, query or fragment (they may hold tokens). */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/** An HTTP/SSE connection failure in words (HTTP 401, connection refused, …). */
export function describeRemoteError(rawUrl: string, err: unknown): ToolServerError {
  if (err instanceof ToolServerError) return err;
  const url = displayUrl(rawUrl);
  const message = (err instanceof Error ? err.message : String(err)).split(rawUrl).join(url);
  // StreamableHTTPError / SseError carry the HTTP status as a numeric `code`.
  const raw = (err as { code?: unknown })?.code;
  const status = typeof raw === 'number' ? raw : Number(/\bHTTP (\d{3})\b/.exec(message)?.[1] ?? NaN);
  if (status >= 400 && status < 600) {
    const why =
      status === 401 ? ' (unauthorized: check the headers)' : status === 403 ? ' (forbidden)' : status === 404 ? ' (not found)' : '';
    return new ToolServerError(`HTTP ${status}${why} from ${url}`, 'http');
  }
  const code = causeCode(err);
  if (code === 'ECONNREFUSED') return new ToolServerError(`cannot connect to ${url} (connection refused)`, 'connect');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new ToolServerError(`cannot resolve the host of ${url}`, 'connect');
  if (code) return new ToolServerError(`cannot connect to ${url} (${code})`, 'connect');
  const cause = (err as { cause?: { message?: unknown } })?.cause?.message;
  const why = typeof cause === 'string' && cause ? ` (${cause.split(rawUrl).join(url)})` : '';
  return new ToolServerError(`${url}: ${message}${why}`, 'protocol');
}

/** A server that could not answer a request (prompts, resources), for an API error message. */
export function serverFailureMessage(server: string, err: unknown): string {
  return `The tool server ${server} could not answer: ${(err as Error)?.message ?? String(err)}`;
}
