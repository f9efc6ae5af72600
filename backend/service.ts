import { promises as fs } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import { attachmentRoutes } from './api/attachment-routes.js';
import { branchRoutes } from './api/branch-routes.js';
import { isImportUpload, transferRoutes } from './api/transfer-routes.js';
import { modelRoutes } from './api/model-routes.js';
import { chatRoutes } from './api/chat-routes.js';
import { providerReadRoutes, providerWriteRoutes } from './api/config-routes.js';
import { readWebConfig, webConfigRoutes } from './api/web-config-routes.js';
import { WebService } from './web/web-tools.js';
import { mcpRoutes } from './api/mcp-routes.js';
import { mcpStatusRoutes } from './api/mcp-status-routes.js';
import { mcpFeatureRoutes } from './api/mcp-feature-routes.js';
import { mcpOAuthCallbackRoute, mcpSignOutRoute } from './api/mcp-oauth-routes.js';
import { McpOAuth } from './mcp/oauth-client.js';
import { McpTokenStore } from './mcp/oauth-store.js';
import { McpManager } from './mcp/mcp-manager.js';
import { McpToolSource } from './mcp/mcp-tool-source.js';
import { ShellPath } from './mcp/login-shell-path.js';
import { snapshotResources } from './mcp/resource-snapshot.js';
import { profileRoutes } from './api/profile-routes.js';
import { skillRoutes } from './api/skill-routes.js';
import { swapInfoRoutes } from './api/swap-info-routes.js';
import { workspaceRoutes } from './api/workspace-routes.js';
import { createManagedStores, type ManagedStores } from './service-stores.js';
import { pairingRoutes, selfhostRoutes } from './api/pairing-routes.js';
import { backupRoutes } from './api/backup-routes.js';
import { knowledgeRoutes } from './api/knowledge-routes.js';
import { callingDevice } from './auth/credential.js';
import { BackupSchedule } from './backup/backup-schedule.js';
import { BackupStore } from './backup/backup-store.js';
import { logRoutes, publicSystemRoutes } from './api/system-routes.js';
import { requireCredential } from './auth/credential.js';
import { requireRole } from './auth/route-policy.js';
import { ROUTE_ROLES } from './api/route-roles.js';
import { AttachmentStore } from './attachments/attachment-store.js';
import { ChatEngine } from './chat/chat-engine.js';
import { ConfigStore } from './config/config-store.js';
import { dataPaths, prepareDataDir, type DataPaths } from './data/data-dir.js';
import { readIfExists } from './data/atomic-write.js';
import { ApiError, errorMiddleware, notFoundHandler } from './http/errors.js';
import { PREVIEW_CSP, PREVIEW_PATH } from './http/preview-api.js';
import {
  DESKTOP_RENDERER_ORIGIN,
  hostOriginGuard,
  isLoopbackAddress,
  isRawUpload,
  limitJsonDepth,
  requireJsonBody,
  type OriginPolicy,
} from './http/guards.js';
import { accessLog, isReleaseMode } from './log/access-log.js';
import { Logger } from './log/logger.js';
import { PairingService } from './pairing/pairing-service.js';
import { INVITE_TTL_MS } from './pairing/invites.js';
import { createSwapApp } from './swap/swap-app.js';
import { VERSION } from './version.js';
import { SkillToolSource } from './skills/skill-tools.js';
import { combineToolSources } from './tools/combined-tools.js';
import type { ToolSource } from './tools/tool-source.js';
import { KEEPALIVE_MS, MAX_BUFFERED_BYTES, WsHub } from './ws/ws-hub.js';

export interface ServiceOptions {
  dataDir: string;
  host: string;
  /** `-mcp`: global tool-server URL shown as the read-only server `cli`. */
  mcpUrl?: string;
  /** `-model`: fallback default model below config.yaml `defaults`. */
  model?: string;
  /** `-allow-origin` values, besides the listener's own origin and the desktop renderer. */
  allowOrigins?: string[];
  /** Build the swap route builder's app (default true; `-swap-port off` disables it). */
  swapEnabled?: boolean;
  /** `-shell-env`: tool servers use the login shell's PATH (read once, on first use). */
  shellEnv?: boolean;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** What runs tools in chat turns; default: the workspace's tool servers over MCP and the skills. */
  tools?: ToolSource;
  /** Restarts the service around `apply` (a backup restore); without it restores through the API are refused. */
  restart?: (apply: () => Promise<void>) => void;
}

/** The host the sign-in callback URL names: a wildcard bind is reached on loopback. */
function callbackHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

function shellPathOnce(env: NodeJS.ProcessEnv, logger: Logger): () => Promise<string | undefined> {
  const shellPath = new ShellPath(env, (line) => (line.startsWith('warning: ') ? logger.warn(line) : logger.info(line)));
  // Asked soon after start, off the start-up path, so the first tool call rarely waits for the shell.
  setTimeout(() => void shellPath.get(), 2000).unref();
  return () => shellPath.get();
}

export interface Service {
  app: Express;
  /** The swap route builder's app, for its own loopback listener. */
  swapApp?: Express;
  paths: DataPaths;
  logger: Logger;
  config: ConfigStore;
  /** Stores behind the configuration API (profiles, workspaces, tool servers, skills). */
  stores: ManagedStores;
  pairing: PairingService;
  ws: WsHub;
  /** Running tool servers (started on first use). */
  mcp: McpManager;
  /** Tool servers and skills as the chat turn loop uses them. */
  tools: ToolSource;
  /** Sessions and turns. */
  chat: ChatEngine;
  /** Snapshots of the data directory (`backups/`). */
  backups: BackupStore;
  options: ServiceOptions;
  /** Set by the entry point once the listener is bound (own origin). */
  setPort(port: number): void;
  /** Set by the entry point when the listener serves TLS: own origins are https, status shows the fingerprint. */
  setTlsFingerprint(fingerprint: string): void;
  setSwapPort(port: number): void;
  /** Ends running turns (after `turnGraceMs` to finish on their own), then closes the rest. */
  close(turnGraceMs?: number): Promise<void>;
  /** close(), then also waits for the tool servers to end (before a restore swaps the files). */
  stop(): Promise<void>;
}

/** The UI talks to its own backend, the swap listener and loopback backends the user types in. */
const UI_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
  "connect-src 'self' ws: wss: http://127.0.0.1:* http://localhost:*; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

function positiveMs(value: string | undefined): number | undefined {
  const n = value === undefined ? NaN : Number(value);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** A test knob that may only shorten a limit. */
function shorterMs(value: string | undefined, max: number): number {
  return Math.min(positiveMs(value) ?? max, max);
}

async function readBootstrapSecret(paths: DataPaths, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const fromEnv = env.SERVICE_BOOTSTRAP_SECRET?.trim();
  if (fromEnv) return fromEnv;
  return (await readIfExists(paths.bootstrapSecret))?.trim() || undefined;
}

/** Builds the assistant service: stores, pairing, the express app and the WebSocket hub. No listen(). */
export async function createService(options: ServiceOptions): Promise<Service> {
  const env = options.env ?? process.env;
  const logger = options.logger ?? new Logger();
  const paths = dataPaths(options.dataDir);
  for (const warning of await prepareDataDir(paths)) logger.warn(warning);

  const config = new ConfigStore({ file: paths.config, env, logger, fallbackModel: options.model });
  await config.load();

  const pairing = new PairingService({
    file: paths.pairing,
    logger,
    bootstrapSecret: await readBootstrapSecret(paths, env),
    onBootstrapConsumed: () => fs.rm(paths.bootstrapSecret, { force: true }),
    // Test knobs: shorter code life and failure window (never longer than the defaults).
    codeTtlMs: positiveMs(env.SERVICE_PAIRING_CODE_TTL_MS),
    failureWindowMs: positiveMs(env.SERVICE_PAIRING_FAILURE_WINDOW_MS),
    inviteTtlMs: shorterMs(env.SERVICE_INVITE_TTL_MS, INVITE_TTL_MS),
  });
  await pairing.init();

  let port = 0;
  let swapPort = 0;
  let tlsFingerprint: string | null = null;
  const extraOrigins = [DESKTOP_RENDERER_ORIGIN, ...(options.allowOrigins ?? [])];
  const policy: OriginPolicy = {
    loopbackBind: isLoopbackAddress(options.host),
    port: () => port,
    secure: () => tlsFingerprint !== null,
    extraOrigins: () => extraOrigins,
  };
  // The swap listener also answers the UI served by the assistant listener (its swap form).
  const swapPolicy: OriginPolicy = {
    loopbackBind: true,
    port: () => swapPort,
    extraOrigins: () => [...extraOrigins, ...['localhost', '127.0.0.1', '[::1]'].map((h) => `http://${h}:${port}`)],
  };
  const release = isReleaseMode(env);
  const swapApp = options.swapEnabled === false ? undefined : createSwapApp({ logger, paths, env, policy: swapPolicy, release });
  const ws = new WsHub({
    pairing,
    logger,
    policy,
    version: VERSION,
    keepaliveMs: shorterMs(env.SERVICE_WS_KEEPALIVE_MS, KEEPALIVE_MS),
    maxBufferedBytes: Math.min(positiveMs(env.SERVICE_WS_MAX_BUFFERED_BYTES) ?? MAX_BUFFERED_BYTES, MAX_BUFFERED_BYTES),
  });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(accessLog(logger, 'http', release));
  app.use(hostOriginGuard(policy));
  app.use(requireJsonBody);
  app.use(publicSystemRoutes(() => ({ node_id: pairing.nodeId, swap_url: swapApp && swapPort ? `http://127.0.0.1:${swapPort}` : null })));
  app.use(pairingRoutes(pairing, () => tlsFingerprint));
  // Bodies that are files, not JSON to parse: an attachment upload (it may say application/json:
  // a .json file) and an import upload (streamed to disk by its route).
  app.use(
    express.json({
      limit: '1mb',
      type: (req) =>
        !isRawUpload(req.method ?? '', new URL(req.url ?? '/', 'http://x').pathname) &&
        !isImportUpload(req as express.Request) &&
        /^application\/json\b/i.test(req.headers['content-type'] ?? ''),
    }),
  );
  app.use(limitJsonDepth);
  // The built renderer: public like /health (the page holds no secret until the user pairs).
  const uiDir = env.SERVICE_UI_DIR || fileURLToPath(new URL('../renderer/', import.meta.url));
  const serveUi = express.static(uiDir, { index: 'index.html' });
  app.use((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.path === '/api' || req.path.startsWith('/api/')) return next();
    res.set('Content-Security-Policy', req.path === PREVIEW_PATH ? PREVIEW_CSP : UI_CSP);
    // Unknown non-API paths get index.html; no built UI at all falls through to the 404.
    serveUi(req, res, () => res.sendFile('index.html', { root: uiDir }, (err) => (err ? next() : undefined)));
  });
  // Tool-server sign-in: the browser returns here from the authorization server, without the credential.
  const oauth = new McpOAuth(
    new McpTokenStore(paths.mcpTokens),
    // The listener's own scheme: under -tls the code must not come back in clear (DESIGN 16).
    () => `${tlsFingerprint !== null ? 'https' : 'http'}://${callbackHost(options.host)}:${port}/api/mcp/oauth/callback`,
  );
  app.use(mcpOAuthCallbackRoute(oauth, logger));
  // Everything under /api that the public routes above did not answer needs the credential.
  app.use('/api', requireCredential(pairing));
  // DESIGN 16: one policy table decides which routes only an owner may call.
  app.use('/api', requireRole(pairing, ROUTE_ROLES));
  app.use(providerReadRoutes(config));
  const stores = createManagedStores({
    config,
    paths,
    mcpUrl: options.mcpUrl,
    // `web` is built below; URL sources are read only once the service runs.
    knowledge: { fetchPage: (url) => web.fetch(url), progress: (p) => ws.broadcast(p), log: (line) => logger.info(line) },
  });
  app.use(providerWriteRoutes({ config, writer: stores.writer, ws }));
  app.use(webConfigRoutes({ config, writer: stores.writer, ws }));
  app.use(profileRoutes(stores, ws));
  // A workspace's running turns end before its folder goes to the trash (chat is built below).
  app.use(
    workspaceRoutes(
      stores,
      ws,
      (id, remove) => chat.deleteWorkspace(id, remove),
      (ids, field) => chat.checkKnowledgeBases(ids, field),
    ),
  );
  app.use(mcpRoutes(stores, ws));
  // Tool servers: test knobs may only shorten the idle stop, the per-call and the start timeouts.
  const mcp = new McpManager({
    store: stores.mcp,
    paths,
    env,
    log: (line) => logger.info(line),
    idleMs: shorterMs(env.SERVICE_MCP_IDLE_MS, 5 * 60_000),
    callTimeoutMs: shorterMs(env.SERVICE_TOOL_TIMEOUT_MS, 60_000),
    startTimeoutMs: shorterMs(env.SERVICE_MCP_START_TIMEOUT_MS, 30_000),
    shellPath: options.shellEnv ? shellPathOnce(env, logger) : undefined,
    oauth,
  });
  // Skills first: their catalog leads the system prompt and `activate_skill` the tool list.
  const tools: ToolSource =
    options.tools ??
    combineToolSources(
      new SkillToolSource(stores.skills),
      new McpToolSource({ manager: mcp, store: stores.mcp, onConfigChanged: (scope) => ws.configChanged('mcp', scope) }),
    );
  app.use(mcpStatusRoutes(stores, mcp));
  app.use(mcpFeatureRoutes(stores, mcp));
  app.use(mcpSignOutRoute(stores, mcp));
  app.use(skillRoutes(stores, ws));
  const attachments = new AttachmentStore(paths);
  const web = new WebService({ config: () => readWebConfig(config), env });
  const knowledge = stores.knowledge;
  const chat = new ChatEngine({ stores, ws, logger, tools, attachments, web, knowledge });
  // Once the backend runs (not on its start-up path): the knowledge bases open (unfinished ingestion
  // jobs resume), then the search index catches up with the logs. Its "search: index up to date"
  // line thus also says the knowledge bases are open (docs/command-line.md).
  setTimeout(() => {
    void knowledge
      .start()
      .catch((err: Error) => logger.error(`knowledge: ${err.message}`))
      .finally(() => chat.search.start());
  }, 200).unref();
  app.use(chatRoutes(stores, chat, (wid, sid, refs) => snapshotResources(mcp, attachments, wid, sid, refs)));
  app.use(
    attachmentRoutes({
      attachments,
      requireSession: async (wid, sid) => {
        if (!(await stores.workspaces.get(wid))) throw new ApiError('not_found', `No workspace with id ${wid}.`);
        return chat.sessions.require(wid, sid);
      },
    }),
  );
  app.use(knowledgeRoutes(knowledge, (res) => pairing.roleOf(callingDevice(res)) === 'owner', ws));
  app.use(branchRoutes(stores, chat));
  app.use(transferRoutes(stores, chat));
  app.use(modelRoutes(stores.config));
  app.use(logRoutes(logger));
  app.use(swapInfoRoutes(paths, env));
  app.use(selfhostRoutes(pairing));
  const backups = new BackupStore({ root: paths.root });
  app.use(backupRoutes({ backups, logger, restart: options.restart }));
  const backupSchedule = new BackupSchedule({
    store: backups,
    log: (line) => logger.info(line),
    error: (line) => logger.error(line),
    firstCheckMs: shorterMs(env.SERVICE_BACKUP_FIRST_CHECK_MS, 60_000),
  });
  backupSchedule.start();
  app.use(notFoundHandler);
  app.use(errorMiddleware((err) => logger.error(`error: ${(err as Error)?.stack ?? String(err)}`)));

  return {
    app,
    swapApp,
    paths,
    logger,
    config,
    stores,
    pairing,
    ws,
    mcp,
    tools,
    chat,
    backups,
    options,
    setPort(p) {
      port = p;
    },
    setTlsFingerprint(fingerprint) {
      tlsFingerprint = fingerprint;
    },
    setSwapPort(p) {
      swapPort = p;
    },
    async close(turnGraceMs = 0) {
      backupSchedule.stop();
      // Turns first: their last frames and records need the stores (and tool servers) still there.
      await chat.close(turnGraceMs).catch((err: Error) => logger.error(`chat: ending turns at shutdown: ${err.message}`));
      await knowledge.close().catch((err: Error) => logger.error(`knowledge: closing: ${err.message}`));
      ws.close();
      pairing.close();
      void mcp.shutdown();
    },
    async stop() {
      backupSchedule.stop();
      await chat.close().catch((err: Error) => logger.error(`chat: ending turns before a restore: ${err.message}`));
      await knowledge.close().catch((err: Error) => logger.error(`knowledge: closing: ${err.message}`));
      ws.close();
      pairing.close();
      await mcp.shutdown();
    },
  };
}
