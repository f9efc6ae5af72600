/**
 * A local OpenAI-shaped embeddings server for the retrieval-quality bench: `POST /v1/embeddings
 * {model, input: string | string[], encoding_format?}` answers with the word-vector embedding of
 * each input (word-vectors.ts), so the backend's real embedding path is what gets measured.
 * Counts requests and inputs; bad bodies get OpenAI's error shape.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { WordVectors } from './word-vectors.js';

export class EmbeddingServer {
  url = '';
  requests = 0;
  inputs = 0;
  private server?: Server;

  constructor(
    private readonly vectors: WordVectors,
    readonly model: string,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    const address = this.server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const fail = (status: number, message: string, param: string | null = null) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', param, code: null } }));
    };
    if (req.method !== 'POST' || !/^\/(v1\/)?embeddings$/.test(req.url ?? '')) return fail(404, `no route ${req.method} ${req.url}`);
    let body: { model?: unknown; input?: unknown; encoding_format?: unknown };
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
    } catch {
      return fail(400, 'body must be JSON');
    }
    if (body.model !== this.model) return fail(404, `model must be ${this.model}`, 'model');
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(input) || input.length === 0 || !input.every((x) => typeof x === 'string' && x.length > 0))
      return fail(400, 'input must be a non-empty string or a non-empty list of non-empty strings', 'input');
    const format = body.encoding_format ?? 'float';
    if (format !== 'float' && format !== 'base64') return fail(400, "encoding_format must be 'float' or 'base64'", 'encoding_format');
    this.requests++;
    this.inputs += input.length;
    let tokens = 0;
    const data = (input as string[]).map((text, index) => {
      tokens += text.split(/\s+/).length;
      const v = this.vectors.embed(text);
      const embedding = format === 'float' ? v : Buffer.from(new Float32Array(v).buffer).toString('base64');
      return { object: 'embedding', index, embedding };
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data, model: this.model, usage: { prompt_tokens: tokens, total_tokens: tokens } }));
  }
}
