import { deflateRawSync } from 'node:zlib';
import { api, BackendProcess, startPaired, type StartOptions } from '../helpers/backend-process.js';
import { startEmbeddingServer, type EmbeddingServer } from '../helpers/embedding-server.js';

// A real backend with a provider `emb` whose models are the local embedding server's: `emb:bow`
// and `emb:bow2` (embedding) and `emb:rr` (rerank).

export class KbRig {
  private constructor(
    public proc: BackendProcess,
    public credential: string,
    readonly emb: EmbeddingServer,
  ) {}

  static async start(options: { dims?: number; start?: StartOptions; emb?: EmbeddingServer } = {}): Promise<KbRig> {
    const emb = options.emb ?? (await startEmbeddingServer({ dims: options.dims ?? 64 }));
    const { proc, credential } = await startPaired(options.start);
    const rig = new KbRig(proc, credential, emb);
    await rig.ok('POST', '/api/config/providers', {
      id: 'emb',
      name: 'emb',
      type: 'compat',
      base_url: emb.baseUrl,
      api_key: 'sk-test',
      models: [
        { id: 'bow', kind: 'embedding' },
        { id: 'bow2', kind: 'embedding' },
        { id: 'rr', kind: 'rerank' },
        { id: 'chat1', kind: 'chat' },
      ],
    });
    return rig;
  }

  /** Restarts the backend on the same data directory (after a stop or a kill). */
  async restart(): Promise<void> {
    // Already paired: the credential stays valid across restarts.
    this.proc = await BackendProcess.start({ dataDir: this.proc.dataDir });
  }

  call(method: string, path: string, body?: unknown) {
    return api(this.proc.url, method, path, { credential: this.credential, body });
  }

  async ok(method: string, path: string, body?: unknown): Promise<any> {
    const res = await this.call(method, path, body);
    if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  createKb(body: Record<string, unknown> = {}): Promise<any> {
    return this.ok('POST', '/api/knowledge', { name: 'docs', ...body });
  }

  async upload(kb: string, name: string, bytes: Buffer): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.proc.url}/api/knowledge/${kb}/sources`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${this.credential}`,
        'x-filename': encodeURIComponent(name),
        'content-type': 'application/octet-stream',
      },
      body: new Uint8Array(bytes),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* text */
    }
    return { status: res.status, body };
  }

  async uploadOk(kb: string, name: string, bytes: Buffer): Promise<any> {
    const res = await this.upload(kb, name, bytes);
    if (res.status !== 201) throw new Error(`upload ${name}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async source(kb: string, sid: string): Promise<any> {
    const { sources } = await this.ok('GET', `/api/knowledge/${kb}/sources`);
    return (sources as any[]).find((s) => s.id === sid);
  }

  /** Waits (polling the source's real state) until it is in one of `states`; throws past the deadline. */
  async waitState(kb: string, sid: string, states: string[], timeoutMs = 60_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    let last: any;
    while (Date.now() < deadline) {
      last = await this.source(kb, sid);
      if (last && states.includes(last.state)) return last;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`source ${sid} never reached ${states.join('|')}; last: ${JSON.stringify(last)}`);
  }

  search(kb: string, query: string, extra: Record<string, unknown> = {}) {
    return this.call('POST', `/api/knowledge/${kb}/search`, { query, ...extra });
  }

  async stop(): Promise<void> {
    await this.proc.stop();
    this.proc.cleanup();
    await this.emb.close();
  }
}

/** A minimal DOCX (a ZIP with word/document.xml, deflated) built with node:zlib. */
export function makeDocx(paragraphs: { text: string; style?: string }[]): Buffer {
  const body = paragraphs
    .map(
      (p) =>
        `<w:p>${p.style ? `<w:pPr><w:pStyle w:val="${p.style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${p.text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</w:t></w:r></w:p>`,
    )
    .join('');
  return makeZip([
    [
      '[Content_Types].xml',
      Buffer.from(
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      ),
    ],
    [
      'word/document.xml',
      Buffer.from(
        `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
      ),
    ],
  ]);
}

/**
 * A ZIP of deflated entries. `packed` gives an entry's deflated bytes and size as they are (a
 * decompression bomb, damaged data) instead of deflating `data`.
 */
export function makeZip(files: [string, Buffer, { packed: Buffer; size: number }?][]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, data, raw] of files) {
    const packed = raw?.packed ?? deflateRawSync(data);
    const size = raw?.size ?? data.length;
    const crc = raw ? 0 : crc32(data);
    const n = Buffer.from(name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(n.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(n.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, n, packed);
    centrals.push(central, n);
    offset += 30 + n.length + packed.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
