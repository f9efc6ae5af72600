import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KbRig } from './kb-harness.js';

// Embeddings against a local deterministic server: dimensions learnt, hybrid search, provider
// failures end as `failed` with the provider's reason (never `ready`), 429 waited out, a wrong
// dimension refused, and a model change re-embeds while words keep answering (DESIGN 13).

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');

describe('knowledge: embeddings, failures, re-embedding', () => {
  let rig: KbRig;
  before(async () => {
    rig = await KbRig.start({ dims: 48 });
  });
  after(async () => rig?.stop());

  it('embeds every chunk once, learns the dimensions and answers hybrid and vector searches', async () => {
    const kb = await rig.createKb({ name: 'semantic', embedding: { model: 'emb:bow' }, rerank: null });
    assert.deepEqual(kb.embedding, { model: 'emb:bow', dimensions: null });
    const before = rig.emb.inputs;
    const src = await rig.uploadOk(
      kb.id,
      'animals.md',
      Buffer.from('# Animals\n\nThe okapi lives in the forest of the Congo.\n\n# Plants\n\nThe baobab tree stores water.\n'),
    );
    const ready = await rig.waitState(kb.id, src.id, ['ready', 'failed']);
    assert.equal(ready.state, 'ready', JSON.stringify(ready));
    assert.equal(ready.chunks_done, ready.chunks_total);
    assert.equal(rig.emb.inputs - before, ready.chunks_total);
    const detail = await rig.ok('GET', `/api/knowledge/${kb.id}`);
    assert.equal(detail.embedding.dimensions, 48);
    const hybrid = await rig.search(kb.id, 'where does the okapi live');
    assert.equal(hybrid.body.mode, 'hybrid');
    assert.deepEqual(hybrid.body.results[0].location.heading, ['Animals']);
    const vector = await rig.search(kb.id, 'baobab water', { mode: 'vector' });
    assert.equal(vector.body.mode, 'vector');
    assert.deepEqual(vector.body.results[0].location.heading, ['Plants']);
    assert.ok(vector.body.results.every((r: any) => r.score >= 0.2));
  });

  it('a 401 fails the source with the provider reason; Retry after the key is fixed makes it ready', async () => {
    const kb = await rig.createKb({ name: 'auth', embedding: { model: 'emb:bow' } });
    rig.emb.fail({ status: 401 });
    const src = await rig.uploadOk(kb.id, 'a.txt', Buffer.from('some secret words about lemurs'));
    const failed = await rig.waitState(kb.id, src.id, ['ready', 'failed']);
    rig.emb.fail(null);
    assert.equal(failed.state, 'failed');
    assert.equal(failed.error.code, 'provider_auth');
    assert.match(failed.error.message, /Incorrect API key provided/);
    await rig.ok('POST', `/api/knowledge/${kb.id}/sources/${src.id}/retry`);
    assert.equal((await rig.waitState(kb.id, src.id, ['ready', 'failed'])).state, 'ready');
  });

  it('a 500 fails the source naming the provider reason; a 429 with Retry-After is waited out', async () => {
    const kb = await rig.createKb({ name: 'outage', embedding: { model: 'emb:bow' } });
    rig.emb.fail({ status: 500 });
    const src = await rig.uploadOk(kb.id, 'b.txt', Buffer.from('tapirs and their snouts'));
    const failed = await rig.waitState(kb.id, src.id, ['ready', 'failed']);
    rig.emb.fail(null);
    assert.equal(failed.error.code, 'provider_error');
    assert.match(failed.error.message, /HTTP 500.*server had an error/);

    const requests = rig.emb.requests;
    rig.emb.fail({ status: 429, times: 2, retryAfter: '0' });
    const limited = await rig.uploadOk(kb.id, 'c.txt', Buffer.from('pangolins roll into balls'));
    assert.equal((await rig.waitState(kb.id, limited.id, ['ready', 'failed'])).state, 'ready');
    assert.equal(rig.emb.requests - requests, 3);
  });

  it('a vector of another size is refused: failed, never ready', async () => {
    const kb = await rig.createKb({ name: 'dims', embedding: { model: 'emb:bow' } });
    const first = await rig.uploadOk(kb.id, 'd.txt', Buffer.from('axolotls regrow limbs'));
    await rig.waitState(kb.id, first.id, ['ready']);
    rig.emb.fail({ wrongDims: 12 });
    const src = await rig.uploadOk(kb.id, 'e.txt', Buffer.from('quetzals have long tails'));
    const failed = await rig.waitState(kb.id, src.id, ['ready', 'failed']);
    rig.emb.fail(null);
    assert.equal(failed.state, 'failed');
    assert.equal(failed.error.code, 'wrong_dimension');
    assert.match(failed.error.message, /12 dimensions.*48/);
  });

  it('a model change re-embeds every chunk with the new model while lexical search keeps answering', async () => {
    const kb = await rig.createKb({ name: 'switch', embedding: { model: 'emb:bow' } });
    const text = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} ${words(120, `w${i}x`)} marmoset${i}`).join('\n\n');
    const src = await rig.uploadOk(kb.id, 'long.txt', Buffer.from(text));
    const ready = await rig.waitState(kb.id, src.id, ['ready']);
    rig.emb.slowMs = 300;
    const inputs = rig.emb.inputs;
    const patched = await rig.ok('PATCH', `/api/knowledge/${kb.id}`, { embedding: { model: 'emb:bow2' } });
    assert.deepEqual(patched.embedding, { model: 'emb:bow2', dimensions: null });
    await rig.waitState(kb.id, src.id, ['embedding']);
    const during = await rig.search(kb.id, 'marmoset7');
    assert.equal(during.status, 200);
    assert.equal(during.body.mode, 'lexical');
    assert.match(during.body.results[0].text, /marmoset7\b/);
    rig.emb.slowMs = 0;
    assert.equal((await rig.waitState(kb.id, src.id, ['ready', 'failed'])).state, 'ready');
    assert.equal(rig.emb.inputs - inputs, ready.chunks_total);
    assert.equal((await rig.search(kb.id, 'marmoset7')).body.mode, 'hybrid');
  });

  it('refuses a chat model as the embedding model, naming the field', async () => {
    const res = await rig.call('POST', '/api/knowledge', { name: 'x', embedding: { model: 'emb:chat1' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.field, 'embedding.model');
    assert.match(res.body.error.message, /embedding model/);
  });
});
