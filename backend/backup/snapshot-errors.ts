/** A snapshot that cannot be restored as it is; its message names the first problem. Apart from the tar reader so callers can test for it without loading tar. */
export class SnapshotInvalidError extends Error {}
