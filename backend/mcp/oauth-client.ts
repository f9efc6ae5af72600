import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { displayUrl } from './mcp-errors.js';
import type { McpTokenStore } from './oauth-store.js';

// DESIGN 9: sign-in to remote tool servers with the official SDK's OAuth client (discovery from
// the 401's resource metadata, dynamic client registration, authorization code + PKCE, refresh).
// This module only supplies what the SDK asks for: where tokens live, where the browser returns
// (GET /api/mcp/oauth/callback on this service) and what to do with the authorization URL (show
// it in the status as `authorize_url`, the page's "Sign in").

const FLOW_TTL_MS = 15 * 60_000;

/** The store key of a server: its URL without query or fragment (they may hold secrets). */
export const authKey = (url: string) => displayUrl(url);

interface Flow {
  key: string;
  serverUrl: string;
  provider: ServerOAuth;
  expires: number;
}

/** The SDK's OAuthClientProvider for one remote server. */
export class ServerOAuth implements OAuthClientProvider {
  private verifier = '';

  constructor(
    private readonly oauth: McpOAuth,
    readonly key: string,
    private readonly serverUrl: string,
    private readonly onAuthorizeUrl: (url: string) => void,
  ) {}

  get redirectUrl(): string {
    return this.oauth.redirectUrl();
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Service desktop assistant',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return this.oauth.beginFlow(this, this.serverUrl);
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const entry = await this.oauth.store.get(this.key);
    // Registered for another port of this service: register again.
    if (!entry?.client || entry.redirect_uri !== this.redirectUrl) return undefined;
    return entry.client as OAuthClientInformationMixed;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.oauth.store.update(this.key, (e) => ({ ...e, client: client as Record<string, unknown>, redirect_uri: this.redirectUrl }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.oauth.store.get(this.key))?.tokens as OAuthTokens | undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.oauth.store.update(this.key, (e) => ({ ...e, tokens: tokens as Record<string, unknown> }));
  }

  redirectToAuthorization(url: URL): void {
    this.onAuthorizeUrl(url.toString());
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'discovery') return;
    await this.oauth.store.update(this.key, (e) =>
      scope === 'all' ? undefined : scope === 'client' ? { ...e, client: undefined, redirect_uri: undefined } : { ...e, tokens: undefined },
    );
  }
}

/** Sign-in flows of the service: pending authorizations by `state`, and where the browser returns. */
export class McpOAuth {
  private readonly flows = new Map<string, Flow>();
  /** Called after a sign-in completed, to reconnect the servers of that key. */
  onSignedIn?: (key: string) => void;

  constructor(
    readonly store: McpTokenStore,
    readonly redirectUrl: () => string,
  ) {}

  provider(serverUrl: string, onAuthorizeUrl: (url: string) => void): ServerOAuth {
    return new ServerOAuth(this, authKey(serverUrl), serverUrl, onAuthorizeUrl);
  }

  beginFlow(provider: ServerOAuth, serverUrl: string): string {
    const now = Date.now();
    for (const [state, flow] of this.flows) if (flow.expires < now) this.flows.delete(state);
    const state = randomBytes(24).toString('base64url');
    this.flows.set(state, { key: provider.key, serverUrl, provider, expires: now + FLOW_TTL_MS });
    return state;
  }

  /** The browser came back: exchange the code (PKCE verifier from the flow) and store the tokens. */
  async complete(state: string, code: string): Promise<{ server: string }> {
    const flow = this.flows.get(state);
    if (!flow || flow.expires < Date.now()) throw new Error('this sign-in link is unknown or expired; start the sign-in again');
    this.flows.delete(state);
    const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
    const result = await auth(flow.provider, { serverUrl: flow.serverUrl, authorizationCode: code });
    if (result !== 'AUTHORIZED') throw new Error('the authorization server did not issue tokens');
    this.onSignedIn?.(flow.key);
    return { server: flow.key };
  }

  /** A flow that came back with an error (the user declined): forget it. */
  abandon(state: string): boolean {
    return this.flows.delete(state);
  }

  async signOut(serverUrl: string): Promise<void> {
    await this.store.update(authKey(serverUrl), () => undefined);
  }
}
