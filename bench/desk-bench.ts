/**
 * Desktop-life figures: highlighting a 2,000-line code block (lowlight, the chat's highlighter) and
 * backing up / verifying a 200 MB data directory generated here (never in `npm test`).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import typescript from 'highlight.js/lib/languages/typescript';
import type { ElementContent } from 'hast';
import { createLowlight } from 'lowlight';
import { BackupStore } from '../backend/backup/backup-store.js';
import { figure, type Figure } from './bench-kit.js';

const SNIPPET = [
  'export async function load(id: string, options: { retries?: number } = {}): Promise<Item | null> {',
  '  // Retry a few times: the store may be busy right after start.',
  '  for (let attempt = 0; attempt < (options.retries ?? 3); attempt++) {',
  '    const res = await fetch(`/api/items/${encodeURIComponent(id)}`, { headers: { accept: "application/json" } });',
  '    if (res.status === 404) return null;',
  '    if (res.ok) return (await res.json()) as Item;',
  '    await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));',
  '  }',
  "  throw new Error('unreachable: ' + id);",
  '}',
];

function count(nodes: ElementContent[]): number {
  let n = 0;
  for (const node of nodes) n += 1 + (node.type === 'element' ? count(node.children) : 0);
  return n;
}

export function highlightFigures(runs = 9): Figure[] {
  const lowlight = createLowlight();
  lowlight.register('typescript', typescript);
  const code = Array.from({ length: 200 }, (_, i) => SNIPPET.map((l) => l.replace('load', `load${i}`)).join('\n')).join('\n');
  const times: number[] = [];
  let nodes = 0;
  for (let r = 0; r < runs + 1; r++) {
    const start = performance.now();
    const tree = lowlight.highlight('typescript', code);
    nodes = count(tree.children as ElementContent[]);
    if (r > 0) times.push(performance.now() - start);
  }
  return [
    figure(
      {
        group: 'desk',
        name: 'highlight a 2,000-line TypeScript block (lowlight tree)',
        unit: 'ms',
        note: `${nodes} nodes; Node, excluding React's render of the spans; no target in the contract`,
      },
      times,
    ),
  ];
}

const WORDS = Array.from({ length: 3000 }, (_, i) => (i * 2654435761).toString(36).slice(0, 3 + (i % 7)));

/** ~1 MB of chat-log-like JSON lines (compressible) or attachment-like random bytes. */
function sessionFile(seed: number): string | Buffer {
  if (seed % 10 === 0) return randomBytes(1 << 20);
  const lines: string[] = [];
  let size = 0;
  let x = seed;
  while (size < 1 << 20) {
    const words: string[] = [];
    for (let w = 0; w < 60; w++) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      words.push(WORDS[x % WORDS.length]);
    }
    const line = JSON.stringify({ role: x % 2 ? 'user' : 'assistant', content: words.join(' '), at: new Date(1.7e12 + x).toISOString() });
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

export async function backupFigures(runs = 3): Promise<Figure[]> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-backup-'));
  const root = path.join(tmp, 'data');
  try {
    for (let i = 0; i < 200; i++) {
      const dir = path.join(root, 'workspaces', `ws-${i % 8}`, 'sessions');
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `s-${i}.jsonl`), sessionFile(i + 1));
    }
    writeFileSync(path.join(root, 'config.yaml'), 'providers: []\ndefaults: {}\n');
    const store = new BackupStore({ root });
    const times: number[] = [];
    const verify: number[] = [];
    let size = 0;
    for (let r = 0; r < runs; r++) {
      const start = performance.now();
      const info = await store.create('manual');
      times.push(performance.now() - start);
      size = info.size_bytes;
      const checkStart = performance.now();
      const prepared = await store.prepare(path.join(store.dir, info.name));
      verify.push(performance.now() - checkStart);
      await prepared.discard();
      await store.remove(info.name);
    }
    const mb = size / (1 << 20);
    return [
      figure(
        { group: 'desk', name: 'backup of a 200 MB data directory', unit: 's', note: `snapshot ${mb.toFixed(0)} MB (gzip'd tar)` },
        times.map((t) => t / 1000),
      ),
      figure({ group: 'desk', name: 'backup snapshot size (200 MB in: 90% chat logs, 10% random bytes)', unit: 'MB' }, [mb]),
      figure(
        { group: 'desk', name: 'verify a 200 MB snapshot before a restore (unpack + SHA-256)', unit: 's' },
        verify.map((t) => t / 1000),
      ),
    ];
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export async function deskFigures(): Promise<Figure[]> {
  return [...highlightFigures(), ...(await backupFigures())];
}
