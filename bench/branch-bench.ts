/**
 * Branch and import figures (DESIGN 7). Opening a session whose tree has 1,000 branches in 10,000
 * messages (first page of the shown branch, and switching to another branch), against the same
 * GET of a 10,000-message chain in the same run. Importing a ~100 MB ChatGPT conversations.json
 * generated here: wall time of the POST and the backend's peak RSS (VmHWM) over its idle RSS.
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { TSC_BACKEND, figure, pair, rssMb, startListener, type Figure, type Listener } from './bench-kit.js';

const FILLER = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. '.repeat(2);
const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
const line = (id: string, role: string, parent: string | null, i: number) =>
  JSON.stringify({
    t: 'message',
    m: { id, role, parent_id: parent, created_at: at(i), blocks: [{ type: 'text', text: `${id} ${FILLER}` }] },
  });

/** A trunk of 2,000 messages; from each of its 999 earlier replies an edited question starts a branch of 8 messages. */
function branchyLog(): { text: string; leaf: string; other: string; otherLeaf: string; messages: number } {
  const lines: string[] = [];
  let parent: string | null = null;
  let n = 0;
  const trunkReplies: string[] = [];
  for (let r = 0; r < 1000; r++) {
    lines.push(line(`m-u${r}`, 'user', parent, n++));
    lines.push(line(`m-a${r}`, 'assistant', `m-u${r}`, n++));
    parent = `m-a${r}`;
    trunkReplies.push(parent);
  }
  let last = '';
  for (let b = 0; b < 999; b++) {
    let p: string = trunkReplies[b];
    for (let k = 0; k < 4; k++) {
      lines.push(line(`m-b${b}u${k}`, 'user', p, n++));
      lines.push(line(`m-b${b}a${k}`, 'assistant', `m-b${b}u${k}`, n++));
      p = `m-b${b}a${k}`;
    }
    last = p;
  }
  return { text: `${lines.join('\n')}\n`, leaf: last, other: 'm-b500u0', otherLeaf: 'm-b500a3', messages: n };
}

function chainLog(count: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i += 2) {
    lines.push(
      JSON.stringify({
        t: 'message',
        m: { id: `m-u${i}`, role: 'user', created_at: at(i), blocks: [{ type: 'text', text: `q ${FILLER}` }] },
      }),
    );
    lines.push(
      JSON.stringify({
        t: 'message',
        m: { id: `m-a${i}`, role: 'assistant', created_at: at(i), blocks: [{ type: 'text', text: `a ${FILLER}` }] },
      }),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** A ChatGPT export of about `mb` MB: conversations of 12 rounds, one edit and one regeneration each. */
async function chatgptExport(file: string, mb: number): Promise<{ conversations: number; bytes: number }> {
  const out = createWriteStream(file);
  const write = (s: string) => new Promise<void>((resolve) => (out.write(s) ? resolve() : out.once('drain', () => resolve())));
  const text = (c: number, k: number) => `Conversation ${c} message ${k}. ${FILLER.repeat(4)}`;
  await write('[');
  let bytes = 1;
  let c = 0;
  for (; bytes < mb * 1024 * 1024; c++) {
    const mapping: Record<string, unknown> = { root: { id: 'root', parent: null, children: ['n0'], message: null } };
    const msg = (id: string, role: string, k: number) => ({
      id,
      author: { role },
      create_time: 1_700_000_000 + c * 100 + k,
      content: { content_type: 'text', parts: [text(c, k)] },
      metadata: role === 'assistant' ? { model_slug: 'gpt-4o' } : {},
    });
    let parent = 'root';
    for (let k = 0; k < 24; k++) {
      const id = `n${k}`;
      const next = k < 23 ? [`n${k + 1}`] : [];
      if (k === 10) next.push('edit'); // an edited question beside n11
      if (k === 11) next.push('regen');
      mapping[id] = { id, parent, children: next, message: msg(id, k % 2 === 0 ? 'user' : 'assistant', k) };
      parent = id;
    }
    mapping.edit = { id: 'edit', parent: 'n10', children: [], message: msg('edit', 'assistant', 30) };
    mapping.regen = { id: 'regen', parent: 'n11', children: [], message: msg('regen', 'user', 31) };
    const conv = JSON.stringify({
      title: `Chat ${c}`,
      create_time: 1_700_000_000 + c * 100,
      update_time: null,
      current_node: 'n23',
      mapping,
    });
    const piece = (c ? ',' : '') + conv;
    bytes += Buffer.byteLength(piece);
    await write(piece);
  }
  await write(']');
  await new Promise<void>((resolve) => out.end(resolve));
  return { conversations: c, bytes: statSync(file).size };
}

function peakRssMb(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

export async function branchFigures(): Promise<Figure[]> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-branch-'));
  let backend: Listener | undefined;
  try {
    const dataDir = path.join(tmp, 'data');
    backend = await startListener(TSC_BACKEND, ['-port', '0', '-swap-port', 'off', '-data', dataDir], { EXPRESS_MODE: 'release' });
    const credential = await pair(backend);
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${backend!.url}${p}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
      return (await res.json()) as any;
    };
    const wsp = await call('POST', '/api/workspaces', { name: 'bench' });
    const sessions = `/api/workspaces/${wsp.id}/sessions`;
    const logOf = (sid: string) => path.join(dataDir, 'workspaces', wsp.id, 'sessions', sid, 'events.jsonl');

    const tree = branchyLog();
    const branchy = (await call('POST', sessions, { title: 'branchy' })).id as string;
    writeFileSync(logOf(branchy), tree.text);
    const chain = (await call('POST', sessions, { title: 'chain' })).id as string;
    writeFileSync(logOf(chain), chainLog(tree.messages));

    const open: number[] = [];
    const chainOpen: number[] = [];
    const switchTimes: number[] = [];
    for (let i = 0; i < 12; i++) {
      let t0 = performance.now();
      await call('GET', `${sessions}/${chain}`);
      chainOpen.push(performance.now() - t0);
      t0 = performance.now();
      const page = await call('GET', `${sessions}/${branchy}`);
      open.push(performance.now() - t0);
      // The shown branch is the one the previous iteration switched to.
      const want = i % 2 ? tree.otherLeaf : tree.leaf;
      if (page.messages.length !== 50 || page.messages.at(-1).id !== want)
        throw new Error('the branchy session opened on the wrong branch');
      t0 = performance.now();
      await call('PUT', `${sessions}/${branchy}/active`, { message_id: i % 2 ? tree.leaf : tree.other });
      switchTimes.push(performance.now() - t0);
    }
    const chainMedian = [...chainOpen.slice(2)].sort((a, b) => a - b)[Math.floor((chainOpen.length - 2) / 2)];

    const file = path.join(tmp, 'conversations.json');
    const made = await chatgptExport(file, 100);
    const idle = rssMb(backend.child.pid!);
    const t0 = performance.now();
    const res = await fetch(`${backend.url}${sessions}/import`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
      body: readFileSync(file),
    });
    const importMs = performance.now() - t0;
    const body = (await res.json()) as any;
    if (res.status !== 201 || body.sessions.length !== made.conversations)
      throw new Error(`import: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    const peak = peakRssMb(backend.child.pid!);

    const base = { group: 'branches', unit: 'ms' };
    return [
      figure(
        {
          ...base,
          name: 'open a session of 1,000 branches (first page)',
          target: { on: 'median', op: '<=', value: 200 },
          baseline: { name: '10,000-message chain', median: chainMedian, ratio: 0 },
          note: `${tree.messages.toLocaleString('en-US')} messages, 1,000 leaves`,
        },
        open.slice(2),
      ),
      figure({ ...base, name: 'switch branch (PUT active) in it', target: { on: 'median', op: '<=', value: 200 } }, switchTimes.slice(2)),
      figure(
        {
          ...base,
          name: `import a ${Math.round(made.bytes / 1024 / 1024)} MB ChatGPT export`,
          unit: 's',
          note: `${made.conversations.toLocaleString('en-US')} conversations; RSS ${idle.toFixed(0)} MB idle → peak ${peak.toFixed(0)} MB`,
        },
        [importMs / 1000],
      ),
      figure({ ...base, name: 'import: backend peak RSS above idle', unit: 'MB', target: { on: 'median', op: '<=', value: 200 } }, [
        peak - idle,
      ]),
    ].map((f) => (f.baseline ? { ...f, baseline: { ...f.baseline, ratio: f.median / f.baseline.median } } : f));
  } finally {
    await backend?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
