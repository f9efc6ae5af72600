/**
 * Last line of defence: secrets never reach a log line by construction, and anything that
 * still looks like one (a credential, a credential query value) is masked before writing.
 */
const CREDENTIAL = /svc_[A-Za-z0-9_-]{20,}/g;
const CREDENTIAL_QUERY = /(service_credential=)[^&\s"]*/gi;
const BEARER = /(bearer\s+)[^\s"]+/gi;
/**
 * Query values that grant something: an OAuth callback's `code` and `state` (the access log records
 * the callback URL), tokens, client secrets, invite and pairing codes. Any URL in any line.
 */
const SECRET_QUERY = /([?&](?:code|state|access_token|refresh_token|id_token|token|client_secret|invite_code|pairing_code)=)[^&\s"#]*/gi;

export function redact(line: string): string {
  return line.replace(CREDENTIAL, 'svc_***').replace(CREDENTIAL_QUERY, '$1***').replace(BEARER, '$1***').replace(SECRET_QUERY, '$1***');
}
