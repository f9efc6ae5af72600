import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUILD_OUTPUT } from '../../app/build-layout.js';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REGISTER = pathToFileURL(fileURLToPath(new URL('./fixtures/register-fake-electron.js', import.meta.url))).href;
export type Message = { type: string } & Record<string, any>;

/**
 * The built main bundle (dist-app/main/index.js) run under Node with the stand-in `electron`
 * module (fixtures/fake-electron), `home` as the user's home (so ~/.service is a temporary folder).
 */
export class MainHarness {
  readonly messages: Message[] = [];
  private readonly waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  readonly process: ChildProcess;

  constructor(
    readonly home: string,
    env: NodeJS.ProcessEnv = {},
  ) {
    this.process = spawn(process.execPath, ['--import', REGISTER, path.join(ROOT, BUILD_OUTPUT.main)], {
      cwd: ROOT,
      env: {
        ...process.env,
        HOME: home,
        USERPROFILE: home,
        FAKE_ELECTRON_HOME: home,
        SERVICE_CA_CERTS: '',
        NODE_EXTRA_CA_CERTS: '',
        ...env,
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.process.on('message', (m: Message) => {
      this.messages.push(m);
      for (const w of this.waiters.splice(0)) {
        if (w.match(m)) w.resolve(m);
        else this.waiters.push(w);
      }
    });
  }

  get dataDir(): string {
    return path.join(this.home, '.service');
  }

  /** The first message (at or after index `from`) that matches. */
  next(match: (m: Message) => boolean, timeoutMs = 20_000, from = 0): Promise<Message> {
    const seen = this.messages.slice(from).find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching message; got ${JSON.stringify(this.messages.map((m) => m.type))}`)),
        timeoutMs,
      );
      this.waiters.push({ match, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  /** Sends a command to the stand-in and waits for its reply. */
  command(cmd: Record<string, unknown>, reply: string): Promise<Message> {
    const from = this.messages.length;
    this.process.send(cmd);
    return this.next((m) => m.type === reply, 20_000, from);
  }

  ready(timeoutMs = 30_000): Promise<Message> {
    return this.next((m) => m.type === 'send' && m.channel === 'backend:state-changed' && m.payload.status === 'ready', timeoutMs);
  }

  kill(): void {
    this.process.kill('SIGKILL');
  }
}
