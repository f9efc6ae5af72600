/**
 * DESIGN 9: an app started from the Finder or a desktop launcher does not see the PATH the user's
 * shell builds (Homebrew, nvm, volta), so the backend is told to read it from the login shell.
 * Windows apps get the user's PATH from the system already.
 */
export function shellEnvArgs(platform: NodeJS.Platform): string[] {
  return platform === 'darwin' || platform === 'linux' ? ['-shell-env'] : [];
}
