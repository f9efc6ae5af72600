import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AttachmentStore } from '../../backend/attachments/attachment-store.js';
import { AttachmentResolver, fileText } from '../../backend/chat/attachment-resolver.js';
import type { StoredMessage } from '../../backend/chat/chat-types.js';
import { transcript } from '../../backend/chat/compaction.js';
import { buildConversation } from '../../backend/chat/conversation.js';
import { dataPaths } from '../../backend/data/data-dir.js';
import { makePng } from '../helpers/test-files.js';

const at = '2026-01-01T00:00:00.000Z';

describe('attachments in the conversation a request is built from', () => {
  it('compaction summarises images by name and never sends their bytes', () => {
    const items: StoredMessage[] = [
      {
        id: 'm1',
        role: 'user',
        created_at: at,
        blocks: [
          { type: 'image', attachment_id: 'a'.repeat(64), mime: 'image/png', name: 'chart.png' },
          { type: 'text', text: 'what is this?' },
        ],
      },
      { id: 'm2', role: 'assistant', created_at: at, blocks: [{ type: 'text', text: 'A bar chart.' }] },
    ];
    const text = transcript(items);
    assert.equal(text, 'User: [image attached: chart.png]\n\nUser: what is this?\n\nAssistant: A bar chart.');
    const conv = buildConversation(items);
    assert.ok(!JSON.stringify(conv).includes('"media"'));
  });

  it('the resolver loads the bytes once; a model without vision gets a note, a deleted file a note', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'svc-att-'));
    try {
      const store = new AttachmentStore(dataPaths(root));
      const png = makePng(3, 3);
      const view = await store.save('ws-1', 's-1', 'dot.png', [png]);
      const items: StoredMessage[] = [
        {
          id: 'm1',
          role: 'user',
          created_at: at,
          blocks: [
            { type: 'image', attachment_id: view.id, mime: 'image/png', name: 'dot.png' },
            { type: 'file', attachment_id: 'b'.repeat(64), mime: 'text/plain', name: 'gone.txt' },
          ],
        },
      ];
      const seeing = new AttachmentResolver(store, 'ws-1', 's-1', 'native', true);
      await seeing.prepare(items);
      assert.deepEqual(buildConversation(items, seeing)[0].blocks, [
        { type: 'media', kind: 'image', mime: 'image/png', name: 'dot.png', data: png.toString('base64') },
        { type: 'text', text: '[file gone.txt is no longer available]' },
      ]);
      const blind = new AttachmentResolver(store, 'ws-1', 's-1', 'compat', false);
      await blind.prepare(items);
      assert.deepEqual(buildConversation(items, blind)[0].blocks[0], {
        type: 'text',
        text: '[image dot.png: not shown, this model cannot read images]',
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a file name cannot close the wrapper it sits in', () => {
    assert.equal(fileText('a"><x>.txt', 'hi'), '<file name="a&#34;&#62;&#60;x&#62;.txt">\nhi\n</file>');
  });
});

describe('attachment store hooks for export and fork', () => {
  it('lists a session’s attachments and copies them to another session under the same ids', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'svc-att-'));
    try {
      const store = new AttachmentStore(dataPaths(root));
      const png = makePng(5, 5);
      const a = await store.save('ws-1', 's-1', 'a.png', [png]);
      const b = await store.save('ws-1', 's-1', 'b.txt', [Buffer.from('bee\n')]);
      assert.deepEqual((await store.list('ws-1', 's-1')).map((m) => m.name).sort(), ['a.png', 'b.txt']);
      assert.deepEqual(await store.copyInto('ws-1', 's-1', store.dir('ws-1', 's-2'), [a.id, 'f'.repeat(64)]), [a.id]);
      const copied = await store.read('ws-1', 's-2', a.id);
      assert.deepEqual(copied.bytes, png);
      assert.equal(copied.meta.name, 'a.png');
      assert.equal(await store.get('ws-1', 's-2', b.id), undefined);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
