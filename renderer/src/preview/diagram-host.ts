import { mermaidSource } from './mermaid-lib';
import { parseFromFrame, PREVIEW_PAGE } from './protocol';

// One long-lived hidden frame of the preview page that runs Mermaid for every diagram on this page:
// the 5.5 MB library is parsed once, not once per preview (seconds each on a busy machine). It is
// a preview frame like the others (sandbox="allow-scripts", opaque origin, the no-network policy),
// so what Mermaid does there cannot reach the app; it answers with SVG text, which the app never
// inserts into its own page but posts to the block's own preview frame to show.

const PING_MS = 1000;
/** A host that has not answered for this long while drawing is removed (its process ends). */
const STALL_MS = 8000;
const CACHE_MAX = 50;

/** The host stopped answering (a diagram that never finishes): the preview shows "stopped". */
export class DiagramStopped extends Error {}

type Pending = { resolve(svg: string): void; reject(err: Error): void };

class DiagramHost {
  private readonly frame = document.createElement('iframe');
  private readonly pending = new Map<number, Pending>();
  private readonly waiting: unknown[] = [];
  private ready = false;
  private libSent = false;
  private next = 1;
  private lastAnswer = Date.now();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly onGone: () => void) {
    this.frame.setAttribute('sandbox', 'allow-scripts');
    this.frame.referrerPolicy = 'no-referrer';
    this.frame.tabIndex = -1;
    this.frame.dataset.diagramHost = '';
    // Laid out (Mermaid measures its text) but never painted, focused or read out.
    this.frame.style.cssText = 'position:fixed;left:-10000px;top:0;width:1000px;height:800px;border:0;visibility:hidden';
    this.frame.src = PREVIEW_PAGE;
    window.addEventListener('message', this.onMessage);
    document.body.appendChild(this.frame);
  }

  async draw(code: string, theme: 'light' | 'dark'): Promise<string> {
    const id = this.next++;
    // The library goes along with the first draw only; the host keeps it.
    const lib = this.libSent ? undefined : await mermaidSource();
    this.libSent = true;
    return new Promise<string>((resolve, reject) => {
      if (this.pending.size === 0) this.lastAnswer = Date.now();
      this.pending.set(id, { resolve, reject });
      this.post({ type: 'draw', id, code, theme, lib });
      this.timer ??= setInterval(this.heartbeat, PING_MS);
    });
  }

  private post(msg: unknown): void {
    if (this.ready) this.frame.contentWindow?.postMessage(msg, '*');
    else this.waiting.push(msg);
  }

  private readonly heartbeat = () => {
    if (Date.now() - this.lastAnswer > STALL_MS) return this.remove(new DiagramStopped('The diagram renderer stopped responding'));
    this.post({ type: 'ping', n: 0 });
  };

  private readonly onMessage = (e: MessageEvent) => {
    // The frame's origin is "null" (opaque): only its window identifies it.
    if (e.source !== this.frame.contentWindow) return;
    const m = parseFromFrame(e.data);
    if (!m) return;
    this.lastAnswer = Date.now();
    if (m.type === 'ready') {
      this.ready = true;
      for (const msg of this.waiting.splice(0)) this.frame.contentWindow?.postMessage(msg, '*');
    } else if (m.type === 'drawn') {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if ('svg' in m) p?.resolve(m.svg);
      else p?.reject(new Error(m.error));
      if (this.pending.size === 0) this.stopHeartbeat();
    }
  };

  private stopHeartbeat(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  remove(reason: Error): void {
    this.stopHeartbeat();
    window.removeEventListener('message', this.onMessage);
    this.frame.remove();
    for (const p of this.pending.values()) p.reject(reason);
    this.pending.clear();
    this.onGone();
  }
}

let host: DiagramHost | null = null;
const drawn = new Map<string, Promise<string>>();

/** The SVG text of a Mermaid diagram, drawn in the shared host frame (a parse error rejects with Mermaid's message). */
export function drawDiagram(code: string, theme: 'light' | 'dark'): Promise<string> {
  const key = `${theme}\n${code}`;
  const known = drawn.get(key);
  if (known) return known;
  const h = (host ??= new DiagramHost(() => {
    if (host === h) host = null;
  }));
  const svg = h.draw(code, theme);
  drawn.set(key, svg);
  if (drawn.size > CACHE_MAX) drawn.delete(drawn.keys().next().value as string);
  // Failures are not kept: "Run again" draws again.
  svg.catch(() => drawn.delete(key));
  return svg;
}
