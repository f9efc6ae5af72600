/** Ids used in file names: no separators, no dot-only names, nothing that can leave its folder. */
export const SAFE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;

export function isSafeName(name: string): boolean {
  return SAFE_NAME.test(name) && !name.includes('..');
}
