import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ERROR_CATALOG, type ErrorBody, type ErrorCode } from './errors-api.js';

/** A typed error that the error middleware renders as the envelope. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly field?: string;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message?: string, options: { field?: string; headers?: Record<string, string> } = {}) {
    super(message ?? ERROR_CATALOG[code].message);
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.field = options.field;
    this.headers = options.headers;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { error: { code: this.code, message: this.message } };
    if (this.field !== undefined) body.error.field = this.field;
    return body;
  }
}

/** Maps the body parser's own errors (size, syntax, charset) onto the catalog. */
function fromParserError(err: unknown): ApiError | undefined {
  const type = (err as { type?: unknown } | null)?.type;
  switch (type) {
    case 'entity.too.large':
      return new ApiError('payload_too_large');
    case 'entity.parse.failed':
      return new ApiError('invalid_json');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('unsupported_media_type', 'Only UTF-8 JSON bodies are accepted.');
    case 'request.aborted':
      return new ApiError('bad_request', 'The request was aborted.');
    default:
      return undefined;
  }
}

/** File-system failures the user can act on (free space, fix permissions), named in the answer. */
const STORAGE_FAILURES: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'an input/output error occurred',
};

function fromStorageError(err: unknown): ApiError | undefined {
  const { code, syscall } = (err ?? {}) as { code?: unknown; syscall?: unknown };
  // Node's recursive mkdir reports a read-only or vanished parent as ENOENT.
  if (code === 'ENOENT' && syscall === 'mkdir') {
    return new ApiError('storage_error', 'The data directory could not be written: a folder could not be created (ENOENT).');
  }
  if (typeof code !== 'string' || typeof syscall !== 'string' || !(code in STORAGE_FAILURES)) return undefined;
  return new ApiError('storage_error', `The data directory could not be written: ${STORAGE_FAILURES[code]} (${code}).`);
}

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const storage = fromStorageError(err);
  if (storage) return storage;
  // The router decodes path parameters: `%`, `%ZZ` or a torn UTF-8 sequence is the client's fault.
  if (err instanceof URIError) return new ApiError('bad_request', 'The URL contains invalid percent-encoding.');
  return fromParserError(err) ?? new ApiError('internal_error');
}

export function errorMiddleware(onInternal: (err: unknown) => void): ErrorRequestHandler {
  return (err, _req, res, next) => {
    if (res.headersSent) return next(err);
    const apiError = toApiError(err);
    // Storage failures too: the operator needs the path and errno from the log.
    if (apiError.code === 'internal_error' || apiError.code === 'storage_error') onInternal(err);
    if (apiError.headers) res.set(apiError.headers);
    res.status(apiError.status).json(apiError.toBody());
  };
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new ApiError('not_found', `No route for ${req.method} ${req.path}.`));
};
