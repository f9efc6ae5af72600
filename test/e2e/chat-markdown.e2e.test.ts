import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Aimock, type AimockFixture } from '../helpers/aimock.js';
import { BackendProcess } from '../helpers/backend-process.js';
import { assertAccessible } from './axe.js';
import { launchChromium, screenshot, watchErrors } from './browser.js';
import { pairInPage, startUiBackend } from './paired-page.js';
import { apiAs, mockProvider, pageCredential } from './chat-page-kit.js';

const LONG = 60_000;

const RICH =
  'A table, code and math.\n\n| Planet | Moons |\n|---|---:|\n| Mars | 2 |\n| Earth | 1 |\n\n' +
  '```python\ndef area(r):\n    return 3.14 * r ** 2  # circle\n```\n\n' +
  'Inline $e^{i\\pi} + 1 = 0$ and a price of $5 and $6 stays text.\n\n$$\n\\frac{a}{b} = \\sqrt{x}\n$$\n';

const HOSTILE =
  'Links in math: $\\href{javascript:alert(1)}{click}$ and $\\url{javascript:alert(2)}$, ' +
  'html in math: $\\htmlClass{evil}{x}$ $\\htmlStyle{color:red}{y}$ $\\includegraphics{https://example.com/x.png}$, ' +
  'a broken formula $\\frac{1}{$ and `<img src=x onerror="window.__xss=3">`\n\n```html\n<script>window.__xss=4</script>\n```\n';

const FIXTURES: AimockFixture[] = [
  { match: { userMessage: 'rich please' }, response: { content: RICH } },
  { match: { userMessage: 'hostile please' }, response: { content: HOSTILE } },
  { match: { userMessage: 'quick question' }, response: { content: 'A **quick** answer.' } },
];

/** Highlighted fenced code (on demand), KaTeX math as MathML, tables, a copy button per message, hostile input inert. */
describe('chat Markdown: highlighting, math, tables, copy', { timeout: 240_000 }, () => {
  let proc: BackendProcess;
  let mock: Aimock;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const requested: string[] = [];

  const conversation = () => page.getByRole('region', { name: 'Conversation' });
  const send = async (text: string) => {
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill(text);
    await box.press('Enter');
    const reply = conversation().locator(`xpath=(//article[@aria-label='You'])[last()]/following::article[@aria-label='Assistant'][1]`);
    await reply.waitFor({ timeout: LONG });
    await page.getByRole('button', { name: 'Send' }).waitFor({ timeout: LONG });
    return reply;
  };

  before(async () => {
    mock = await Aimock.start(FIXTURES);
    proc = await startUiBackend({ args: ['-swap-port', 'off'] });
    browser = await launchChromium();
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    page = await context.newPage();
    errors = watchErrors(page);
    page.on('request', (r) => requested.push(new URL(r.url()).pathname));
    await pairInPage(page, proc);
    const call = apiAs(proc.url, await pageCredential(page));
    await call('POST', '/api/config/providers', mockProvider(mock.url, { context_window: 32000 }));
    await call('PUT', '/api/config/defaults', { provider: 'mock', model: 'm1' });
    await call('POST', '/api/workspaces', { name: 'Maths' });
    await page.reload();
    await page.getByRole('button', { name: 'New chat' }).first().click();
  });

  after(async () => {
    await browser?.close();
    await proc?.stop();
    proc?.cleanup();
    await mock?.stop();
  });

  it('the highlighter and KaTeX are not part of the first load', () => {
    assert.ok(!requested.some((p) => /code-highlight|math-render|\/python-/.test(p)), requested.join(' '));
  });

  it('renders a table, highlighted Python, inline and display math', async () => {
    const reply = await send('rich please');
    await reply.getByRole('table').getByRole('cell', { name: 'Mars' }).waitFor();
    assert.equal(await reply.getByRole('table').getByRole('row').count(), 3);
    // Highlighted: the keyword and the comment are their own spans, loaded with the Python grammar.
    await reply.locator('code.hljs .hljs-keyword', { hasText: 'def' }).waitFor({ timeout: LONG });
    await reply.locator('code.hljs .hljs-comment', { hasText: '# circle' }).waitFor();
    assert.equal(await reply.locator('code.hljs').innerText(), 'def area(r):\n    return 3.14 * r ** 2  # circle');
    assert.ok(requested.some((p) => /\/python-[\w-]+\.js$/.test(p)));
    assert.ok(!requested.some((p) => /\/(rust|cpp|sql)-[\w-]+\.js$/.test(p)), 'only the grammar in use loads');
    // Math as MathML: inline and display; currency stays text.
    await reply.locator('.md-math-inline math').waitFor({ timeout: LONG });
    assert.equal(await reply.locator('.md-math-inline math mi', { hasText: 'π' }).count(), 1);
    await reply.locator('.md-math math[display="block"] mfrac').waitFor();
    await reply.locator('.md-math math msqrt').waitFor();
    await reply.getByText('and a price of $5 and $6 stays text.').waitFor();
    await assertAccessible(page, 'rich Markdown reply');
    await screenshot(page, 'chat-markdown-rich-1280');
  });

  it('a copy button per message copies its Markdown source', async () => {
    const reply = conversation().getByRole('article', { name: 'Assistant' }).last();
    await reply.getByRole('button', { name: 'Copy message' }).click();
    await reply.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), RICH.trim());
  });

  it('hostile Markdown and TeX stay inert: no link, no image, no script, no style from a reply', async () => {
    const reply = await send('hostile please');
    await reply.locator('.md-math-inline math').first().waitFor({ timeout: LONG });
    await reply.locator('code.hljs', { hasText: '<script>window.__xss=4</script>' }).waitFor({ timeout: LONG });
    assert.equal(await reply.locator('a, img, script, style, iframe, object, [href], [src], [style], [onerror], .evil').count(), 0);
    assert.equal(await page.evaluate('window.__xss'), undefined);
    // The broken formula shows (KaTeX's error rendering, as MathML text), and the page keeps working.
    await reply.getByText('<img src=x onerror="window.__xss=3">').waitFor();
    assert.deepEqual(errors, []);
  });

  it('the quick-ask page asks in the last used workspace, streams the answer and opens the chat in the main page', async () => {
    await page.goto(`${proc.url}/#/quick-ask`);
    await page.reload();
    await page.getByRole('heading', { name: 'Quick ask', level: 1 }).waitFor();
    await page.getByText('in Maths').waitFor();
    await page.getByRole('textbox', { name: 'Question' }).fill('quick question');
    await page.keyboard.press('Enter');
    const reply = page.getByRole('article', { name: 'Assistant' }).last();
    await reply.locator('strong', { hasText: 'quick' }).waitFor({ timeout: LONG });
    await assertAccessible(page, 'quick ask');
    await screenshot(page, 'quick-ask-560x420');
    await page.getByRole('button', { name: 'Open in the main window' }).click();
    await page.getByRole('heading', { name: 'Chat', level: 1 }).waitFor();
    await page.locator('.session-pick[aria-current="true"]', { hasText: 'quick question' }).waitFor({ timeout: LONG });
  });

  it('in the dark theme the highlighted code and math pass axe', async () => {
    await page.getByLabel('Theme').selectOption('dark');
    await assertAccessible(page, 'Markdown replies, dark');
    await screenshot(page, 'chat-markdown-dark-1280');
    await page.getByLabel('Theme').selectOption('system');
  });
});
