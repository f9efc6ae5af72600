import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './backend-process.js';

/** A fixture of @copilotkit/aimock (JSON form: `match` on userMessage, hasToolResult, sequenceIndex …). */
export interface AimockFixture {
  match: Record<string, unknown>;
  response: Record<string, unknown>;
  latency?: number;
  chunkSize?: number;
  truncateAfterChunks?: number;
  disconnectAfterMs?: number;
  streamingProfile?: Record<string, unknown>;
}

const CLI = fileURLToPath(new URL('../../../node_modules/@copilotkit/aimock/dist/cli.js', import.meta.url));

/**
 * aimock as a separate process on a free port: one server for all three protocols
 * (`/v1/chat/completions`, `/v1/messages`, `/v1/responses`). Its journal normalises requests;
 * put a RecordingRelay in front of it to see the raw ones.
 */
export class Aimock {
  private constructor(
    readonly url: string,
    private readonly child: ChildProcess,
    readonly fixtureFile: string,
  ) {}

  static async start(fixtures: AimockFixture[], options: { chunkSize?: number; latency?: number } = {}): Promise<Aimock> {
    const dir = tempDir('aimock-');
    const file = path.join(dir, 'fixtures.json');
    writeFileSync(file, JSON.stringify({ fixtures }, null, 1));
    const args = [CLI, '-p', '0', '-h', '127.0.0.1', '-f', file, '--log-level', 'info'];
    if (options.chunkSize) args.push('-c', String(options.chunkSize));
    if (options.latency) args.push('-l', String(options.latency));
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`aimock did not start:\n${out}`)), 15_000);
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.on('exit', (code) => reject(new Error(`aimock exited (${code}):\n${out}`)));
    });
    return new Aimock(url, child, file);
  }

  /** aimock's journal: requests after its conversion to the chat-completions form. */
  async journal(): Promise<any[]> {
    const res = await fetch(`${this.url}/__aimock/journal`);
    const body = (await res.json()) as any;
    return Array.isArray(body) ? body : (body.entries ?? body.requests ?? []);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}
