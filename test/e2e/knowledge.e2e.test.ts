import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Aimock } from '../helpers/aimock.js';
import type { BackendProcess } from '../helpers/backend-process.js';
import { startEmbeddingServer, type EmbeddingServer } from '../helpers/embedding-server.js';
import { makePdf } from '../helpers/test-files.js';
import { launchChromium, screenshot, watchErrors } from './browser.js';
import { apiAs, axeViolations } from './chat-page-kit.js';
import { pairedContext, startPairedUi } from './paired-page.js';

const LONG = 60_000;

/** A Markdown guide whose words the searches and the chat below look for. */
const GUIDE = [
  '# Aurora guide',
  '',
  '## Fees',
  '',
  'The AURA-7 transfer fee is 7.3 percent of the amount, charged when the transfer settles.',
  '',
  '## Limits',
  '',
  'A single transfer may move at most 5000 units; larger amounts are split by the wallet.',
  '',
].join('\n');
/** A two-page PDF: page 2 alone says "Borealis". */
const PDF = makePdf('Borealis appendix lists the night shift rota', 2);

const FIXTURES = [
  { match: { userMessage: 'What is the AURA-7 fee?' }, response: { content: 'The AURA-7 transfer fee is 7.3 percent [1].' } },
  { match: { userMessage: 'AURA-7 手续费是多少？' }, response: { content: 'AURA-7 的转账手续费是 7.3% [1]。' } },
];

describe('knowledge bases in Chromium: create, add files, watch them index, search, cite in chat', { timeout: 600_000 }, () => {
  let proc: BackendProcess;
  let mock: Aimock;
  let vectors: EmbeddingServer;
  let browser: Browser;
  let credential: string;
  let call: ReturnType<typeof apiAs>;
  let kbId = '';
  const errorLists: string[][] = [];

  async function open(options: Parameters<typeof pairedContext>[3] = {}): Promise<{ context: BrowserContext; page: Page }> {
    const context = await pairedContext(browser, proc, credential, options);
    const page = await context.newPage();
    errorLists.push(watchErrors(page));
    return { context, page };
  }

  /** Drops files on the drop area as a user's drag from the desktop does (a DataTransfer with File objects). */
  async function dropFiles(page: Page, files: { name: string; type: string; data: Buffer }[]) {
    const transfer = await page.evaluateHandle(
      (list) => {
        const dt = new DataTransfer();
        for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
        return dt;
      },
      files.map((f) => ({ name: f.name, type: f.type, b64: f.data.toString('base64') })),
    );
    await page.getByTestId('kb-drop').dispatchEvent('drop', { dataTransfer: transfer });
  }

  before(async () => {
    mock = await Aimock.start(FIXTURES);
    vectors = await startEmbeddingServer();
    ({ proc, credential } = await startPairedUi());
    call = apiAs(proc.url, credential);
    await call('POST', '/api/config/providers', {
      id: 'mock',
      name: 'Mock',
      type: 'compat',
      base_url: `${mock.url}/v1`,
      api_key: 'sk-test-key',
      models: [
        { id: 'm1', name: 'Chat one', kind: 'chat', context_window: 64_000 },
        { id: 'emb', name: 'Embedder', kind: 'embedding' },
      ],
    });
    // A local embeddings server the last test makes fail and go slow.
    await call('POST', '/api/config/providers', {
      id: 'local',
      name: 'Local',
      type: 'compat',
      base_url: vectors.baseUrl,
      api_key: 'sk-local',
      models: [{ id: 'vec', kind: 'embedding' }],
    });
    await call('PUT', '/api/config/defaults', { provider: 'mock', model: 'm1' });
    await call('POST', '/api/workspaces', { name: 'Docs' });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await proc?.stop();
    proc?.cleanup();
    await mock?.stop();
    await vectors?.close();
    for (const errors of errorLists) assert.deepEqual(errors, []);
  });

  it('creates a knowledge base with an embedding model, indexes dropped and picked files live, and searches them', async () => {
    const { context, page } = await open();
    const progress: { source_id: string; state: string }[] = [];
    page.on('websocket', (ws) =>
      ws.on('framereceived', (f) => {
        const m = JSON.parse(String(f.payload)) as { type: string; source_id: string; state: string };
        if (m.type === 'knowledge.progress') progress.push(m);
      }),
    );
    await page.goto(`${proc.url}/#/knowledge`);
    await page.getByRole('heading', { name: 'Knowledge', level: 1 }).waitFor({ timeout: LONG });
    await page.getByText('No knowledge bases yet').waitFor();
    assert.deepEqual(await axeViolations(page), []);

    await page.getByRole('button', { name: 'New knowledge base' }).click();
    const dialog = page.getByRole('dialog', { name: 'New knowledge base' });
    await dialog.getByLabel('Name').fill('Aurora docs');
    await dialog.getByLabel('Description').fill('Fees and limits of Aurora transfers');
    // Only the model marked as an embedding model is offered; the chat model is not.
    const embedding = dialog.getByLabel('Embedding model');
    // The models arrive with the providers' list, which the dialog asks for when it opens.
    await embedding.locator('option', { hasText: 'Local · vec' }).waitFor({ state: 'attached' });
    assert.deepEqual(await embedding.locator('option').allTextContents(), ['None (words only)', 'Mock · Embedder', 'Local · vec']);
    await embedding.selectOption('mock:emb');
    assert.deepEqual(await dialog.getByLabel('Rerank model').locator('option').allTextContents(), ['No reranking']);
    await dialog.getByRole('button', { name: 'Create' }).click();

    // Created: the page opens the new base.
    await page.getByRole('heading', { name: 'Aurora docs', level: 1 }).waitFor({ timeout: LONG });
    kbId = decodeURIComponent(/#\/knowledge\/([^/]+)$/.exec(page.url())![1]!);
    const kb = await call('GET', `/api/knowledge/${encodeURIComponent(kbId)}`);
    assert.equal(kb.embedding.model, 'mock:emb');

    await dropFiles(page, [{ name: 'aurora-guide.md', type: 'text/markdown', data: Buffer.from(GUIDE) }]);
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Choose files…' }).click();
    await (await chooser).setFiles({ name: 'borealis.pdf', mimeType: 'application/pdf', buffer: PDF });

    const sources = page.getByRole('region', { name: 'Sources' });
    const guideRow = sources.locator('tr', { hasText: 'aurora-guide.md' });
    const pdfRow = sources.locator('tr', { hasText: 'borealis.pdf' });
    await guideRow.locator('text=Ready').waitFor({ timeout: LONG });
    await pdfRow.locator('text=Ready').waitFor({ timeout: LONG });
    // The rows moved with the socket's progress frames (no reload), ending in their passage counts.
    const listed = (await call('GET', `/api/knowledge/${encodeURIComponent(kbId)}/sources`)).sources as {
      id: string;
      name: string;
      chunks_total: number;
    }[];
    for (const s of listed) {
      assert.ok(s.chunks_total > 0, `${s.name} has passages`);
      assert.ok(
        progress.some((p) => p.source_id === s.id && p.state === 'ready'),
        `a ready frame for ${s.name}`,
      );
      const row = sources.locator(`tr[data-source="${s.id}"]`);
      assert.equal((await row.getByRole('cell').nth(2).textContent())?.trim(), String(s.chunks_total));
    }
    assert.equal(await sources.getByRole('progressbar').count(), 0, 'no bar left once every source is ready');
    await screenshot(page, 'knowledge-01-sources');
    assert.deepEqual(await axeViolations(page), []);

    // Search by words: the exact term (a hyphen is a word, not FTS syntax) finds the guide's fee passage.
    const search = page.getByRole('region', { name: 'Search' });
    await search.getByLabel('Words').check();
    await search.getByLabel('Search this knowledge base').fill('AURA-7');
    await search.getByRole('button', { name: 'Search', exact: true }).click();
    const hits = search.getByRole('list', { name: 'Passages for “AURA-7”' });
    await hits.waitFor({ timeout: LONG });
    const first = hits.getByRole('listitem').first();
    assert.match((await first.textContent()) ?? '', /aurora-guide\.md.*Aurora guide › Fees.*score \d\.\d{3}.*7\.3 percent/s);
    // Hybrid (the default) answers too, and a PDF passage opens with its page in the original file.
    await search.getByLabel('Hybrid').check();
    await search.getByLabel('Search this knowledge base').fill('Borealis night shift');
    await search.getByRole('button', { name: 'Search', exact: true }).click();
    // Each page of the PDF is a passage of its own, placed by its page.
    const pdfHits = search.getByRole('list', { name: 'Passages for “Borealis night shift”' }).getByRole('listitem');
    await pdfHits.first().waitFor({ timeout: LONG });
    const pdfHit = pdfHits.filter({ hasText: 'p. 2' });
    assert.match((await pdfHit.textContent()) ?? '', /borealis\.pdf.*p\. 2.*\(page 2\)/s);
    await pdfHit.scrollIntoViewIfNeeded();
    await screenshot(page, 'knowledge-02-search');
    await pdfHit.getByRole('button', { name: 'borealis.pdf' }).click();
    const passage = page.getByRole('dialog', { name: 'borealis.pdf' });
    await passage.getByText('Borealis appendix lists the night shift rota (page 2)').waitFor({ timeout: LONG });
    const opened = context.waitForEvent('page');
    await passage.getByRole('button', { name: 'Open the PDF at page 2' }).click();
    const tab = await opened;
    await tab.waitForURL(/^blob:.*#page=2$/, { timeout: LONG });
    await tab.close();
    await passage.getByRole('button', { name: 'Close' }).click();

    // Nothing relevant is an answer, not an error.
    await search.getByLabel('Search this knowledge base').fill('zzyzx quartz');
    await search.getByRole('button', { name: 'Search', exact: true }).click();
    await search.getByText('Nothing relevant found for “zzyzx quartz”.').waitFor({ timeout: LONG });
    await context.close();
  });

  it('the # picker attaches the base to one message; the reply cites it and the citation opens the passage', async () => {
    assert.ok(kbId, 'the first test made the knowledge base');
    const { context, page } = await open();
    await page.goto(proc.url + '/');
    await page.getByRole('button', { name: 'New chat' }).first().click();
    const conversation = page.getByRole('region', { name: 'Conversation' });
    await conversation.getByText('Send a message to start.').waitFor({ timeout: LONG });
    // Chat pickers list chat models only (read once the model list has arrived).
    const picker = page.getByLabel('Model', { exact: true });
    await picker.locator('option', { hasText: 'Chat one' }).first().waitFor({ state: 'attached' });
    const models = await picker.locator('option').allTextContents();
    assert.ok(models.some((m) => m.startsWith('Chat one')));
    assert.ok(!models.some((m) => m.includes('Embedder')), `the embedding model is not offered for chat: ${models.join(', ')}`);

    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('#aur');
    const option = page.getByRole('option', { name: '#Aurora docs' });
    await option.waitFor({ timeout: LONG });
    await box.press('Enter');
    const chips = page.getByRole('list', { name: 'Knowledge bases for this message' });
    await chips.getByText('#Aurora docs').waitFor();
    assert.equal(await box.inputValue(), '', 'the #query left the text');
    await box.fill('What is the AURA-7 fee?');
    const sent = page.waitForRequest((r) => r.method() === 'POST' && /\/messages$/.test(r.url()));
    await box.press('Enter');
    assert.deepEqual((await sent).postDataJSON().knowledge_bases, [kbId]);
    // The chips go with that one message.
    await chips.waitFor({ state: 'detached' });

    await conversation.getByText('The AURA-7 transfer fee is 7.3 percent').waitFor({ timeout: LONG });
    const cited = conversation.getByRole('region', { name: 'Sources' }).last();
    await cited.waitFor({ timeout: LONG });
    // The citation stored on the reply is the one shown, and it opens exactly its chunk.
    const wid = (await call('GET', '/api/workspaces')).workspaces[0].id as string;
    const sid = (await call('GET', `/api/workspaces/${wid}/sessions`)).sessions[0].id as string;
    const messages = (await call('GET', `/api/workspaces/${wid}/sessions/${sid}`)).messages as { citations?: any[] }[];
    const stored = messages.flatMap((m) => m.citations ?? []);
    assert.equal(stored.length, 1, JSON.stringify(stored));
    const [c] = stored;
    assert.deepEqual([c.n, c.kind, c.kb_id, c.name], [1, 'knowledge', kbId, 'aurora-guide.md']);
    const citation = cited.getByRole('button', { name: /aurora-guide\.md/ });
    assert.equal((await citation.textContent())?.trim(), `aurora-guide.md · ${c.location.heading.join(' › ')}`);
    await citation.click();
    const passage = page.getByRole('dialog', { name: 'aurora-guide.md' });
    const quote = passage.locator(`blockquote[data-chunk="${c.chunk_id}"]`);
    await quote.waitFor({ timeout: LONG });
    const span = await call('GET', `/api/knowledge/${encodeURIComponent(kbId)}/sources/${c.source_id}/chunks`);
    const chunk = span.chunks.find((x: { chunk_id: string }) => x.chunk_id === c.chunk_id);
    assert.equal(await quote.textContent(), chunk.text);
    await screenshot(page, 'knowledge-03-citation');
    assert.deepEqual(await axeViolations(page), []);
    await passage.getByRole('button', { name: 'Close' }).click();

    // The provider editor shows each model's kind; a workspace's knowledge bases are ticked in its Edit dialog.
    await page.goto(`${proc.url}/#/providers`);
    await page.getByRole('button', { name: 'Edit Mock' }).click();
    const editor = page.getByRole('dialog', { name: 'Edit provider “Mock”' });
    assert.equal(await editor.getByLabel('Kind 1').inputValue(), 'chat');
    assert.equal(await editor.getByLabel('Kind 2').inputValue(), 'embedding');
    assert.equal(await editor.getByLabel('Tools 2').isDisabled(), true, 'tools apply to chat models only');
    await editor.getByRole('button', { name: 'Cancel' }).click();
    await page.goto(`${proc.url}/#/workspaces`);
    await page.getByRole('button', { name: 'Edit Docs' }).click();
    const ws = page.getByRole('dialog', { name: 'Edit workspace' });
    await ws.getByRole('checkbox', { name: 'Aurora docs' }).check();
    await ws.getByRole('button', { name: 'Save' }).click();
    await ws.waitFor({ state: 'detached' });
    assert.deepEqual((await call('GET', `/api/workspaces/${wid}`)).knowledge_bases, [kbId]);
    await context.close();
  });

  it('in Chinese at 390 px: the page, its rows and search fit; the composer keeps its box beside a chip', async () => {
    assert.ok(kbId, 'the first test made the knowledge base');
    const { context, page } = await open({ viewport: { width: 390, height: 844 }, locale: 'zh-CN', isMobile: true, hasTouch: true });
    await page.goto(`${proc.url}/#/knowledge`);
    await page.getByRole('heading', { name: '知识库', level: 1 }).waitFor({ timeout: LONG });
    await page.getByRole('link', { name: 'Aurora docs' }).click();
    await page.getByRole('heading', { name: 'Aurora docs', level: 1 }).waitFor({ timeout: LONG });
    const sources = page.getByRole('region', { name: '来源' });
    assert.equal(await sources.getByText('就绪').count(), 2);
    const search = page.getByRole('region', { name: '检索' });
    await search.getByLabel('检索此知识库').fill('AURA-7 手续费');
    await search.getByRole('button', { name: '检索', exact: true }).click();
    await search.getByRole('list', { name: '“AURA-7 手续费”的段落' }).getByRole('listitem').first().waitFor({ timeout: LONG });
    const overflow = (await page.evaluate('document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth')) as number;
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
    await screenshot(page, 'knowledge-04-zh-phone');
    assert.deepEqual(await axeViolations(page), []);

    await page.goto(proc.url + '/#/chat');
    await page.getByRole('button', { name: '新对话' }).first().click();
    await page.getByText('发送一条消息开始对话。').waitFor({ timeout: LONG });
    const box = page.getByRole('textbox', { name: '消息' });
    await box.fill('#');
    await page.getByRole('option', { name: '#Aurora docs' }).click();
    await page.getByRole('list', { name: '本条消息使用的知识库' }).getByText('#Aurora docs').waitFor();
    const width = (await box.boundingBox())!.width;
    assert.ok(width >= 200, `the message box is ${width} px wide beside the chip`);
    await box.fill('AURA-7 手续费是多少？');
    await box.press('Enter');
    const reply = page.getByText('AURA-7 的转账手续费是 7.3%');
    await reply.waitFor({ timeout: LONG });
    await page
      .getByRole('region', { name: '来源' })
      .last()
      .getByRole('button', { name: /aurora-guide\.md/ })
      .click();
    await page.getByRole('dialog', { name: 'aurora-guide.md' }).locator('blockquote').waitFor({ timeout: LONG });
    await screenshot(page, 'knowledge-05-zh-citation');
    assert.deepEqual(await axeViolations(page), []);
    await context.close();
  });

  it('a failed source says why and Retry indexes it; Pause and Resume control a running job', async () => {
    const { context, page } = await open();
    const kb = await call('POST', '/api/knowledge', { name: 'Flaky', embedding: { model: 'local:vec' } });
    await page.goto(`${proc.url}/#/knowledge/${kb.id}`);
    await page.getByRole('heading', { name: 'Flaky', level: 1 }).waitFor({ timeout: LONG });
    const sources = page.getByRole('region', { name: 'Sources' });

    vectors.fail({ status: 401 });
    await page.getByRole('button', { name: 'Add a note' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a note' });
    await dialog.getByRole('button', { name: 'Add' }).click();
    // Both fields are required, said under each before anything is sent.
    assert.equal(await dialog.getByText('Title is required.').count(), 1);
    assert.equal(await dialog.getByText('Text is required.').count(), 1);
    await dialog.getByLabel('Title').fill('Shift notes');
    await dialog.getByLabel('Text').fill('The night shift hands over at six with the pager and the keys.');
    await dialog.getByRole('button', { name: 'Add' }).click();
    const row = sources.locator('tr', { hasText: 'Shift notes' });
    await row.locator('.badge', { hasText: 'Failed' }).waitFor({ timeout: LONG });
    assert.match((await row.textContent()) ?? '', /Failed: The provider refused the key \(HTTP 401\).*\(provider_auth\)/s);
    await screenshot(page, 'knowledge-06-failed');
    assert.deepEqual(await axeViolations(page), []);
    vectors.fail(null);
    await row.getByRole('button', { name: 'Retry Shift notes' }).click();
    await row.locator('text=Ready').waitFor({ timeout: LONG });
    assert.equal(await row.getByRole('button', { name: 'Retry Shift notes' }).count(), 0);

    // A slow provider: the job is paused mid-way, then resumed to the end.
    vectors.slowMs = 2_000;
    const before = vectors.requests;
    await page.getByRole('button', { name: 'Add a note' }).click();
    const second = page.getByRole('dialog', { name: 'Add a note' });
    await second.getByLabel('Title').fill('Pager rules');
    await second.getByLabel('Text').fill('Whoever holds the pager answers within ten minutes, day or night.');
    await second.getByRole('button', { name: 'Add' }).click();
    const slow = sources.locator('tr', { hasText: 'Pager rules' });
    await vectors.waitForRequests(before + 1);
    // While the provider works on it, the row shows its job's bar.
    await slow.getByRole('progressbar', { name: 'Indexing Pager rules' }).waitFor({ timeout: LONG });
    await slow.getByRole('button', { name: 'Pause Pager rules' }).click();
    await slow.locator('text=Paused').waitFor({ timeout: LONG });
    vectors.slowMs = 0;
    await slow.getByRole('button', { name: 'Resume Pager rules' }).click();
    await slow.locator('text=Ready').waitFor({ timeout: LONG });
    await context.close();
  });
});
