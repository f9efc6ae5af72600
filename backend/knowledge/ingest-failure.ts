/** A source's ingestion ended: `code` and `message` become the source's `error` (DESIGN 13). */
export class IngestFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
