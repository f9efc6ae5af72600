/** Kept equal to package.json's version (a test checks it). */
export const VERSION = '0.1.0';
/** HTTP API generation, bumped on incompatible changes. */
export const API_VERSION = 1;
