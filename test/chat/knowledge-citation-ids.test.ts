import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { ChatRig, model } from './chat-harness.js';

// A citation stored on a chat reply keeps opening the passage it cited after the knowledge base's
// index is deleted or damaged and rebuilt at the next start (DESIGN 13: "a damaged index is
// rebuilt, never fatal"): chunk ids are stable, not SQLite rowids that a rebuild hands out again.

/** Two chunks of about 512 tokens; the cited one is the second. */
const FILLER = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} lists routine pump, filter and seal checks for the crew.`).join('\n');
const ALPHA = `${FILLER}\n${FILLER}\nThe fennec fox sleeps under the third dune of the Erg Chebbi in the day.\n`;
const BETA = 'Owls of the northern barn hunt at dusk.\n';

describe('knowledge citations survive an index rebuild (stable chunk ids)', () => {
  let mock: Aimock;
  let rig: ChatRig;
  let kb: string;
  let alpha: string;
  let beta: string;

  async function upload(name: string, text: string): Promise<string> {
    const res = await fetch(`${rig.proc.url}/api/knowledge/${kb}/sources`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${rig.credential}`,
        'x-filename': encodeURIComponent(name),
        'content-type': 'application/octet-stream',
      },
      body: new TextEncoder().encode(text),
    });
    const body = (await res.json()) as any;
    assert.equal(res.status, 201, JSON.stringify(body));
    return body.id as string;
  }

  /** Polls the sources' real state until each is ready (a failure is reported with its reason). */
  async function ready(...ids: string[]): Promise<void> {
    for (;;) {
      const { sources } = await rig.ok('GET', `/api/knowledge/${kb}/sources`);
      const states = ids.map((id) => (sources as any[]).find((s) => s.id === id));
      for (const s of states) assert.notEqual(s?.state, 'failed', JSON.stringify(s));
      if (states.every((s) => s?.state === 'ready')) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The cited text as the whole source's chunks hold it, and as the citation viewer's read opens it. */
  async function open(c: any): Promise<{ paged: string | undefined; viewer: string | undefined }> {
    const whole = await rig.ok('GET', `/api/knowledge/${c.kb_id}/sources/${c.source_id}/chunks`);
    const span = await rig.ok('GET', `/api/knowledge/${c.kb_id}/sources/${c.source_id}/chunks?chunk_id=${encodeURIComponent(c.chunk_id)}`);
    return {
      paged: (whole.chunks as any[]).find((x) => x.chunk_id === c.chunk_id)?.text,
      viewer: span.chunk_id === c.chunk_id ? (span.chunks as any[]).find((x) => x.chunk_id === c.chunk_id)?.text : undefined,
    };
  }

  before(async () => {
    mock = await Aimock.start([
      {
        match: { userMessage: 'Q-CITE', hasToolResult: false },
        response: { toolCalls: [{ name: 'knowledge_search', arguments: '{"query":"fennec fox dune"}' }] },
      },
      { match: { userMessage: 'Q-CITE', hasToolResult: true }, response: { content: 'It sleeps under the third dune [1].' } },
    ]);
    rig = await ChatRig.start([
      { id: 'prov', type: 'compat', base_url: `${mock.url}/v1`, models: [model('tools', { context_window: 1000 })] },
    ]);
    kb = (await rig.ok('POST', '/api/knowledge', { name: 'Field notes' })).id;
    alpha = await upload('alpha.txt', ALPHA);
    await ready(alpha);
    beta = await upload('beta.txt', BETA);
    await ready(beta);
    // A retry parses alpha again after beta: its chunks are stored anew, as a re-sync does.
    await rig.ok('POST', `/api/knowledge/${kb}/sources/${alpha}/retry`);
    await ready(alpha, beta);
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await mock?.stop();
  });

  it('the stored citation opens the same passage after the index is deleted, and again after it is damaged', async () => {
    const sid = await rig.newSession();
    await rig.ok('PATCH', rig.sessionsPath(sid), { model: 'prov:tools' });
    const watch = await rig.watch();
    try {
      const { turn_id } = await rig.ok('POST', `${rig.sessionsPath(sid)}/messages`, {
        content: 'Q-CITE: where does it sleep?',
        knowledge_bases: [kb],
      });
      assert.equal((await watch.end(turn_id)).type, 'turn.completed');
    } finally {
      watch.close();
    }
    const [c] = (await rig.session(sid)).messages.at(-1).citations;
    assert.deepEqual([c.kind, c.kb_id, c.source_id, c.name], ['knowledge', kb, alpha, 'alpha.txt']);
    const first = await open(c);
    assert.match(first.paged ?? '', /The fennec fox sleeps under the third dune/);

    const file = path.join(rig.proc.dataDir, 'knowledge', kb, 'index.sqlite');
    for (const damage of ['deleted', 'damaged']) {
      await rig.proc.stop();
      for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
      if (damage === 'damaged') writeFileSync(file, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4096, 0xab)]));
      await rig.restart();
      await ready(alpha, beta);
      const stored = (await rig.session(sid)).messages.at(-1).citations[0];
      assert.deepEqual(stored, c);
      assert.deepEqual(await open(stored), first, `after the index was ${damage}`);
    }
    assert.match(c.chunk_id, /^ck_[0-9a-f]{20}$/);
    assert.equal(first.viewer, first.paged, 'the viewer opens the cited chunk by its id');
  });

  it('a citation whose passage is gone answers a clear 404; a malformed id is a 400 naming chunk_id', async () => {
    const gone = await rig.call('GET', `/api/knowledge/${kb}/sources/${alpha}/chunks?chunk_id=ck_00000000000000000000`);
    assert.equal(gone.status, 404);
    assert.match(gone.body.error.message, /cited passage ck_0+ no longer exists in alpha\.txt/);
    // A numeric id from before stable ids, in an index built after them: gone, never another passage.
    const numeric = await rig.call('GET', `/api/knowledge/${kb}/sources/${beta}/chunks?chunk_id=1`);
    assert.equal(numeric.status, 404);
    const bad = await rig.call('GET', `/api/knowledge/${kb}/sources/${alpha}/chunks?chunk_id=${encodeURIComponent('a b/c')}`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'chunk_id');
  });
});
