#!/usr/bin/env node
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import { parseArgs, UsageError, USAGE, type CliOptions } from './cli/args.js';
import { readCaCertificates, trustExtraCaCertificates } from './cli/extra-ca-certs.js';
import { inUtilityProcess, watchParent } from './cli/parent-watch.js';
import { resetPairing } from './cli/reset-pairing.js';
import { backupCommand, CommandError, restoreCommand } from './cli/backup-commands.js';
import { InstanceLock, InstanceLockedError } from './data/instance-lock.js';
import { isLoopbackAddress } from './http/guards.js';
import { loadTlsMaterial, type TlsMaterial } from './selfhost/tls-material.js';
import { createService, type Service } from './service.js';
import { VERSION } from './version.js';

/** Running turns get this long to finish at shutdown before they are ended (their records stored). */
const TURN_GRACE_MS = 1000;
/** Hard limit: the desktop app kills the backend 5 s after asking it to stop. */
const SHUTDOWN_GRACE_MS = 2500;
const SWAP_HOST = '127.0.0.1';

/** Idle and slow-client limits shared by both listeners. */
const LISTENER_LIMITS = { keepAliveTimeout: 5000, requestTimeout: 30_000, headersTimeout: 10_000 };

function listen(server: Server | TlsServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

function formatHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function listenFailure(err: NodeJS.ErrnoException, what: string, host: string, port: number): never {
  if (err.code === 'EADDRINUSE') process.stderr.write(`error: ${what} port ${port} on ${host} is already in use\n`);
  else if (err.code === 'EACCES') process.stderr.write(`error: no permission to listen on ${host}:${port} (${what})\n`);
  else if (err.code === 'EADDRNOTAVAIL') process.stderr.write(`error: address ${host} is not available on this machine (${what})\n`);
  else process.stderr.write(`error: cannot listen on ${host}:${port} (${what}): ${err.message}\n`);
  process.exit(1);
}

/** What the utility-process parent watch calls: the current (possibly restarted) service's shutdown. */
let onParentGone = (): void => process.exit(0);

/** The listeners of a service that restarted itself: kept bound, handed to the next service. */
interface Listeners {
  server: Server | TlsServer;
  swapServer?: Server;
  tlsMaterial?: TlsMaterial;
  url: string;
  swapUrl: string | null;
  port: number;
  /** Points the listeners at a service's handlers (its app, its WebSocket upgrades). */
  route(service: Service): void;
  /** Between two services: every request is answered 503, every upgrade refused. */
  pause(): void;
}

/** While a restore swaps the files: requests are refused, and the port stays ours. */
function restartingReply(res: ServerResponse): void {
  const body = JSON.stringify({
    error: { code: 'shutting_down', message: 'The backend is restarting after a restore; try again in a moment.' },
  });
  res.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '1', Connection: 'close' });
  res.end(body);
}

/** Creates and binds the listeners once; later services reuse them (the port is never free). */
async function openListeners(options: CliOptions, service: Service, clientCas: string[] | undefined): Promise<Listeners> {
  const { logger } = service;
  let tlsMaterial: TlsMaterial | undefined;
  try {
    tlsMaterial = await loadTlsMaterial(options.tls, {
      selfhostDir: service.paths.selfhostDir,
      host: options.host,
      log: (line) => (line.startsWith('warning: ') ? logger.warn(line) : logger.info(line)),
    });
  } catch (err) {
    process.stderr.write(`error: TLS: ${(err as Error).message}\n`);
    process.exit(1);
  }
  let app: (req: IncomingMessage, res: ServerResponse) => void = service.app;
  let swapApp: ((req: IncomingMessage, res: ServerResponse) => void) | undefined = service.swapApp ?? undefined;
  let detachWs: (() => void) | undefined;
  const handler = (req: IncomingMessage, res: ServerResponse) => app(req, res);
  // HTTPS and WSS share the one port: the WebSocket upgrade arrives on the TLS server as on plain HTTP.
  const server = tlsMaterial
    ? createTlsServer(
        {
          cert: tlsMaterial.cert,
          key: tlsMaterial.key,
          minVersion: 'TLSv1.2',
          // mTLS: without a certificate signed by the client CA the handshake fails.
          ...(clientCas ? { ca: clientCas, requestCert: true, rejectUnauthorized: true } : {}),
        },
        handler,
      )
    : createServer(handler);
  Object.assign(server, LISTENER_LIMITS);
  const port = await listen(server, options.port, options.host).catch((err: NodeJS.ErrnoException) =>
    listenFailure(err, tlsMaterial ? 'HTTPS' : 'HTTP', options.host, options.port),
  );
  const url = `${tlsMaterial ? 'https' : 'http'}://${formatHost(options.host)}:${port}`;

  let swapServer: Server | undefined;
  let swapUrl: string | null = null;
  if (service.swapApp && options.swapPort !== 'off') {
    const swapPortWanted = options.swapPort;
    swapServer = createServer((req, res) => (swapApp ? swapApp(req, res) : restartingReply(res)));
    swapServer.keepAliveTimeout = LISTENER_LIMITS.keepAliveTimeout;
    swapServer.requestTimeout = LISTENER_LIMITS.requestTimeout;
    // The swap builder has no credential: it is only ever bound to the loopback.
    const swapPort = await listen(swapServer, swapPortWanted, SWAP_HOST).catch((err: NodeJS.ErrnoException) =>
      listenFailure(err, 'swap builder', SWAP_HOST, swapPortWanted),
    );
    swapUrl = `http://${SWAP_HOST}:${swapPort}`;
  }
  const refuseUpgrade = (_req: IncomingMessage, socket: Duplex) => socket.destroy();
  return {
    server,
    swapServer,
    tlsMaterial,
    url,
    swapUrl,
    port,
    route(next) {
      server.off('upgrade', refuseUpgrade);
      app = next.app;
      swapApp = next.swapApp ?? undefined;
      detachWs = next.ws.attach(server);
    },
    pause() {
      app = (_req, res) => restartingReply(res);
      swapApp = undefined;
      detachWs?.();
      detachWs = undefined;
      server.on('upgrade', refuseUpgrade);
    },
  };
}

/** Runs the service; `kept` when it restarts itself after a restore (the lock and the listeners stay). */
async function serve(options: CliOptions, kept?: { lock: InstanceLock; listeners: Listeners }): Promise<void> {
  let service: Service;
  let lock: InstanceLock;
  let extraCas: string[] = [];
  let clientCas: string[] | undefined;
  try {
    extraCas = options.caCerts ? readCaCertificates(options.caCerts) : [];
    clientCas = options.clientCa ? readCaCertificates(options.clientCa, '-client-ca') : undefined;
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`);
    process.exit(1);
  }
  if (extraCas.length > 0 && !kept) trustExtraCaCertificates(extraCas);
  try {
    // One backend per data directory, checked before anything in it is touched.
    lock = kept?.lock ?? (await InstanceLock.acquire(options.dataDir));
    service = await createService({
      restart: (apply) => void restartWith(apply),
      dataDir: options.dataDir,
      host: options.host,
      mcpUrl: options.mcpUrl,
      model: options.model,
      allowOrigins: options.allowOrigins,
      swapEnabled: options.swapPort !== 'off',
      shellEnv: options.shellEnv,
    });
  } catch (err) {
    if (err instanceof InstanceLockedError) process.stderr.write(`error: ${err.message}\n`);
    else process.stderr.write(`error: cannot use data directory ${options.dataDir}: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const { logger } = service;
  if (extraCas.length > 0) logger.info(`trusting ${extraCas.length} extra CA certificate(s) from ${options.caCerts} for outgoing HTTPS`);
  if (!isLoopbackAddress(options.host)) {
    logger.error(`warning: listening on non-loopback address ${options.host}; anyone who can reach it can try to pair`);
  }
  const listeners = kept?.listeners ?? (await openListeners(options, service, clientCas));
  const { server, swapServer, tlsMaterial, url, swapUrl } = listeners;
  listeners.route(service);
  service.setPort(listeners.port);
  if (tlsMaterial) service.setTlsFingerprint(tlsMaterial.fingerprint);
  const swapPort = (swapServer?.address() as { port: number } | null | undefined)?.port;
  if (swapPort !== undefined) service.setSwapPort(swapPort);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal} received, shutting down`);
    setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS).unref();
    const servers = [server, ...(swapServer ? [swapServer] : [])];
    // No new connections; the running turns end (and store their records) before the process does.
    for (const s of servers) s.close();
    void service.close(TURN_GRACE_MS).finally(() => {
      for (const s of servers) s.closeAllConnections();
      process.exit(0);
    });
  };
  const onSigint = () => shutdown('SIGINT');
  const onSigterm = () => shutdown('SIGTERM');
  const onDisconnect = () => shutdown('parent exited');
  // A backup restore through the API: stop the service, put the files in place, serve again. The
  // listeners stay bound throughout (requests meanwhile get 503): no other process can take the port.
  const restartWith = async (apply: () => Promise<void>) => {
    if (stopping) return;
    stopping = true;
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    process.off('disconnect', onDisconnect);
    listeners.pause();
    await service.stop();
    server.closeAllConnections();
    swapServer?.closeAllConnections();
    try {
      await apply();
      logger.info('backup restored; starting again');
    } catch (err) {
      logger.error(`error: the restore failed, the data directory was left as it was: ${(err as Error).message}`);
    }
    await serve(options, { lock, listeners });
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  // Spawned by the desktop app with an IPC channel: exit when the parent goes away.
  if (process.channel) {
    process.on('disconnect', onDisconnect);
  }
  // Run by the desktop app in an Electron utility process (no IPC channel): watch the app's process.
  onParentGone = () => shutdown('parent exited');
  if (inUtilityProcess() && !kept) watchParent(() => onParentGone());
  // The desktop app finds a running backend for its data directory here.
  await lock.update({ url, swapUrl }).catch((err: Error) => {
    logger.error(`warning: cannot record the addresses in ${lock.file}: ${err.message}`);
  });
  // Announced last: whoever reads these lines finds the lock naming this backend with no write in
  // flight, and a SIGINT/SIGTERM sent as soon as they appear reaches the shutdown handler.
  if (clientCas) logger.info(`mutual TLS: clients need a certificate signed by ${options.clientCa}`);
  if (tlsMaterial) logger.info(`tls fingerprint: ${tlsMaterial.fingerprint}`);
  logger.info(`listening on ${url}`);
  if (swapUrl) logger.info(`swap builder listening on ${swapUrl}`);
}

async function main(argv: string[]): Promise<void> {
  let options: CliOptions;
  try {
    options = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n${USAGE}`);
    process.exit(2);
  }
  switch (options.command) {
    case 'help':
      process.stdout.write(USAGE);
      return;
    case 'version':
      process.stdout.write(`${VERSION}\n`);
      return;
    case 'reset-pairing':
      process.stdout.write(`${await resetPairing(options.dataDir)}\n`);
      return;
    case 'backup':
      process.stdout.write(`${await backupCommand(options.dataDir)}\n`);
      return;
    case 'restore':
      process.stdout.write(`${(await restoreCommand(options.dataDir, options.restoreFile ?? '', options.foreign)).join('\n')}\n`);
      return;
    case 'serve':
      return serve(options);
  }
}

main(process.argv.slice(2)).catch((err: Error) => {
  if (err instanceof CommandError) {
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`error: ${err.message}\n`);
  process.exit(1);
});
