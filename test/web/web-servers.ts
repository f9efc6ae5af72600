import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hit {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A local HTTP server on 127.0.0.1, port 0, that records every request it gets. */
export class PageServer {
  readonly hits: Hit[] = [];
  port = 0;
  private server: Server | undefined;

  constructor(private readonly handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) {}

  static async start(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<PageServer> {
    const s = new PageServer(handler);
    s.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        s.hits.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body });
        s.handler(req, res, body);
      });
    });
    await new Promise<void>((resolve) => s.server!.listen(0, '127.0.0.1', resolve));
    s.port = (s.server.address() as AddressInfo).port;
    return s;
  }

  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  get url(): string {
    return `http://${this.host}`;
  }

  stop(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** An article page with navigation, a footer, scripts and styles around its main text. */
export function articlePage(paragraphs: string[], title = 'The Article Title'): string {
  const nav =
    '<nav><ul>' +
    ['Home', 'Products', 'NAVLINK-Pricing', 'About us'].map((l) => `<li><a href="/${l}">${l}</a></li>`).join('') +
    '</ul></nav>';
  return `<!doctype html><html><head><title>${title} | Site</title><style>body{color:red} .SECRETSTYLE{}</style>
<script>var trackingSecret = "SCRIPT-CONTENT-XYZ"; document.write('x');</script></head>
<body><header><div class="logo">SiteLogo HEADER-TEXT</div>${nav}</header>
<main><article><h1>${title}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}
<p>See <a href="/relative/page">the related page</a>.</p></article></main>
<aside class="sidebar"><h3>Popular</h3><ul><li><a href="/x">SIDEBAR-ITEM one</a></li></ul></aside>
<footer><p>FOOTER-TEXT Copyright 2026. All rights reserved.</p><script>console.log("SCRIPT-TWO")</script></footer></body></html>`;
}

/** Main-text paragraphs made of numbered words, so a test can count what survived. */
export function paragraphsOf(count: number, wordsEach = 60, seed = 'word'): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const words: string[] = [];
    for (let w = 0; w < wordsEach; w++) words.push(`${seed}${i}x${w}`);
    out.push(`${words.join(' ')}.`);
  }
  return out;
}
