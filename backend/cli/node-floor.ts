/**
 * The oldest Node.js the backend runs on. package.json `engines.node`, the bundle's build target
 * (vite.app.config.ts) and the Node that Electron embeds are held to this number by
 * test/app/node-floor.test.ts. `node:sqlite` with FTS5 and `tls.setDefaultCACertificates` are among
 * what it guarantees.
 */
export const NODE_FLOOR_MAJOR = 22;

/** The one line an older Node gets instead of failing later on a missing API; `null` when it is new enough. */
export function nodeFloorProblem(version: string = process.versions.node): string | null {
  const major = Number.parseInt(version.split('.')[0] ?? '', 10);
  if (Number.isInteger(major) && major >= NODE_FLOOR_MAJOR) return null;
  return `error: this service needs Node.js ${NODE_FLOOR_MAJOR} or later, but it is running on Node.js ${version}; install Node.js ${NODE_FLOOR_MAJOR} or later`;
}
