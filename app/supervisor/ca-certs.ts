import { existsSync } from 'node:fs';

/**
 * Extra CA certificates for the backend's outgoing HTTPS (a TLS-inspecting proxy's root). Electron's
 * NODE_OPTIONS fuse, off in the package, also makes the backend's Node ignore NODE_EXTRA_CA_CERTS,
 * so the app hands the file over as the backend's `-ca-certs` flag. SERVICE_CA_CERTS wins (a bad
 * file is an error the backend reports); a NODE_EXTRA_CA_CERTS the user set for other Node tools is
 * used when the file exists (plain Node only warns about a missing one).
 */
export function caCertArgs(env: NodeJS.ProcessEnv): string[] {
  const explicit = env.SERVICE_CA_CERTS?.trim();
  if (explicit) return ['-ca-certs', explicit];
  const inherited = env.NODE_EXTRA_CA_CERTS?.trim();
  return inherited && existsSync(inherited) ? ['-ca-certs', inherited] : [];
}
