/** `"Deep Seek"` → `DEEP_SEEK`: upper-case, every run of non-alphanumerics replaced by `_`. */
export function envPrefix(providerName: string): string {
  return providerName
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

export function envOverrides(providerName: string, env: NodeJS.ProcessEnv): { apiKey?: string; baseUrl?: string } {
  const prefix = envPrefix(providerName);
  if (!prefix) return {};
  const apiKey = env[`${prefix}_API_KEY`];
  const baseUrl = env[`${prefix}_BASE_URL`];
  // A key pasted with its line ending: HTTP strips the whitespace, so the provider sees (and may echo) the bare key.
  return { apiKey: apiKey?.trim() || undefined, baseUrl: baseUrl || undefined };
}

/** `sk-...a1b2`: enough to recognise a key, never enough to use it. */
export function maskKey(key: string): string {
  if (key.length < 12) return '***';
  return `${key.slice(0, 3)}...${key.slice(-4)}`;
}

/** Visible ASCII only: anything else cannot be sent in an HTTP header (fetch would quote the key in its error). */
export function isSendableKey(key: string): boolean {
  return /^[\x21-\x7e]*$/.test(key);
}
