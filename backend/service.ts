import { promises as fs } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import { branchRoutes } from './api/branch-routes.js';
import { isImportUpload, transferRoutes } from './api/transfer-routes.js';
import { modelRoutes } from './api/model-routes.js';
import { chatRoutes } from './api/chat-routes.js';
import { providerReadRoutes, providerWriteRoutes } from './api/config-routes.js';
import { mcpRoutes } from './api/mcp-routes.js';
import { mcpStatusRoutes } from './api/mcp-status-routes.js';
import { McpManager } from './mcp/mcp-manager.js';
import { McpToolSource } from './mcp/mcp-tool-source.js';
import { profileRoutes } from './api/profile-routes.js';
import { skillRoutes } from './api/skill-routes.js';
import { swapInfoRoutes } from './api/swap-info-routes.js';
import { workspaceRoutes } from './api/workspace-routes.js';
import { createManagedStores, type ManagedStores } from './service-stores.js';
import { pairingRoutes, selfhostRoutes } from './api/pairing-routes.js';
import { logRoutes, publicSystemRoutes } from './api/system-routes.js';
import { requireCredential } from './auth/credential.js';
import { ChatEngine } from './chat/chat-engine.js';
import { ConfigStore } from './config/config-store.js';
import { dataPaths, prepareDataDir, type DataPaths } from './data/data-dir.js';
import { readIfExists } from './data/atomic-write.js';
import { errorMiddleware, notFoundHandler } from './http/errors.js';
import {
  DESKTOP_RENDERER_ORIGIN,
  hostOriginGuard,
  isLoopbackAddress,
  limitJsonDepth,
  requireJsonBody,
  type OriginPolicy,
} from './http/guards.js';
import { accessLog, isReleaseMode } from './log/access-log.js';
import { Logger } from './log/logger.js';
import { PairingService } from './pairing/pairing-service.js';
import { createSwapApp } from './swap/swap-app.js';
import { VERSION } from './version.js';
import { SkillToolSource } from './skills/skill-tools.js';
import { combineToolSources } from './tools/combined-tools.js';
import type { ToolSource } from './tools/tool-source.js';
import { WsHub } from './ws/ws-hub.js';

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
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** What runs tools in chat turns; default: the workspace's tool servers over MCP and the skills. */
  tools?: ToolSource;
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
  options: ServiceOptions;
  /** Set by the entry point once the listener is bound (own origin). */
  setPort(port: number): void;
  setSwapPort(port: number): void;
  close(): void;
}

/** The UI talks to its own backend, the swap listener and loopback backends the user types in. */
const UI_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self' ws: http://127.0.0.1:* http://localhost:*; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

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
  });
  await pairing.init();

  let port = 0;
  let swapPort = 0;
  const extraOrigins = [DESKTOP_RENDERER_ORIGIN, ...(options.allowOrigins ?? [])];
  const policy: OriginPolicy = {
    loopbackBind: isLoopbackAddress(options.host),
    port: () => port,
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
  const ws = new WsHub({ pairing, logger, policy, version: VERSION });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(accessLog(logger, 'http', release));
  app.use(hostOriginGuard(policy));
  app.use(requireJsonBody);
  app.use(publicSystemRoutes(() => ({ node_id: pairing.nodeId, swap_url: swapApp && swapPort ? `http://127.0.0.1:${swapPort}` : null })));
  app.use(pairingRoutes(pairing));
  const json = express.json({ limit: '1mb' });
  app.use((req, res, next) => (isImportUpload(req) ? next() : json(req, res, next)));
  app.use(limitJsonDepth);
  // The built renderer: public like /health (the page holds no secret until the user pairs).
  const uiDir = env.SERVICE_UI_DIR || fileURLToPath(new URL('../renderer/', import.meta.url));
  const serveUi = express.static(uiDir, { index: 'index.html' });
  app.use((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.path === '/api' || req.path.startsWith('/api/')) return next();
    res.set('Content-Security-Policy', UI_CSP);
    // Unknown non-API paths get index.html; no built UI at all falls through to the 404.
    serveUi(req, res, () => res.sendFile('index.html', { root: uiDir }, (err) => (err ? next() : undefined)));
  });
  // Everything under /api that the public routes above did not answer needs the credential.
  app.use('/api', requireCredential(pairing));
  app.use(providerReadRoutes(config));
  const stores = createManagedStores({ config, paths, mcpUrl: options.mcpUrl });
  app.use(providerWriteRoutes({ config, writer: stores.writer, ws }));
  app.use(profileRoutes(stores, ws));
  app.use(workspaceRoutes(stores, ws));
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
  });
  // Skills first: their catalog leads the system prompt and `activate_skill` the tool list.
  const tools: ToolSource =
    options.tools ??
    combineToolSources(
      new SkillToolSource(stores.skills),
      new McpToolSource({ manager: mcp, store: stores.mcp, onConfigChanged: (scope) => ws.configChanged('mcp', scope) }),
    );
  app.use(mcpStatusRoutes(stores, mcp));
  app.use(skillRoutes(stores, ws));
  const chat = new ChatEngine({ stores, ws, logger, tools });
  app.use(chatRoutes(stores, chat));
  app.use(branchRoutes(stores, chat));
  app.use(transferRoutes(stores, chat));
  app.use(modelRoutes(stores.config));
  app.use(logRoutes(logger));
  app.use(swapInfoRoutes(paths, env));
  app.use(selfhostRoutes(pairing));
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
    options,
    setPort(p) {
      port = p;
    },
    setSwapPort(p) {
      swapPort = p;
    },
    close() {
      void chat.close();
      ws.close();
      pairing.close();
      void mcp.shutdown();
    },
  };
}
