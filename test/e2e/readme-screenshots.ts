// `npm run screenshots`: the README's two pictures, taken with the browser tests' own setup (the
// built UI, a real backend, aimock as the provider, the local chain for the swap page), so they show
// the app as it is today. Not a test: it writes docs/images/chat.png and docs/images/swap.png.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startDevchain, type Devchain } from '../../devchain/devchain.js';
import { Aimock } from '../helpers/aimock.js';
import { BackendProcess, tempDir } from '../helpers/backend-process.js';
import { buildRenderer, launchChromium, ROOT } from './browser.js';
import { apiAs, mockProvider, pageCredential } from './chat-page-kit.js';

const OUT = path.join(ROOT, 'docs', 'images');
const QUESTION = 'How do I compute the area of a circle in Python?';
const ANSWER = [
  'The area of a circle of radius $r$ is',
  '',
  '$$A = \\pi r^2$$',
  '',
  'In Python, with the standard library only:',
  '',
  '```python',
  'import math',
  '',
  'def area(r: float) -> float:',
  '    """Area of a circle of radius r."""',
  '    return math.pi * r ** 2',
  '',
  'print(round(area(2.5), 2))  # 19.63',
  '```',
  '',
  '| radius | area |',
  '|---|---|',
  '| 1 | 3.14 |',
  '| 2.5 | 19.63 |',
].join('\n');

let chain: Devchain | undefined;
let proc: BackendProcess | undefined;
let mock: Aimock | undefined;
let browser: Browser | undefined;
try {
  mkdirSync(OUT, { recursive: true });
  const dataDir = path.join(tempDir('svc-screenshots-'), 'data');
  const [uiDir, started, aimock] = await Promise.all([
    buildRenderer(),
    startDevchain({ dataDir }),
    Aimock.start([{ match: { userMessage: QUESTION }, response: { content: ANSWER } }]),
  ]);
  chain = started;
  mock = aimock;
  proc = await BackendProcess.start({ dataDir, env: { SERVICE_UI_DIR: uiDir } });
  await proc.waitForLine(/^pairing code: \d{6}/);
  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });

  await page.goto(proc.url + '/');
  await page.getByLabel('Pairing code').fill(proc.pairingCode()!);
  await page.getByRole('button', { name: 'Pair', exact: true }).click();
  await page.getByRole('heading', { name: 'Chat', level: 1 }).waitFor();
  const call = apiAs(proc.url, await pageCredential(page));
  await call('POST', '/api/config/providers', mockProvider(mock.url, { context_window: 128000 }));
  await call('PUT', '/api/config/defaults', { provider: 'mock', model: 'm1' });
  await call('POST', '/api/workspaces', { name: 'Notes' });
  await page.reload();
  await page.getByRole('button', { name: 'New chat' }).first().click();
  const message = page.getByRole('textbox', { name: 'Message' });
  await message.fill(QUESTION);
  await message.press('Enter');
  const reply = page.getByRole('region', { name: 'Conversation' }).getByRole('article', { name: 'Assistant' }).last();
  await reply.locator('code.hljs .hljs-keyword').first().waitFor({ timeout: 30_000 });
  await reply.locator('.md-math math').first().waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Send' }).waitFor({ timeout: 30_000 });
  await page.screenshot({ path: path.join(OUT, 'chat.png') });

  await page.getByRole('link', { name: 'Swap builder' }).click();
  // The listener's address arrives from the backend after the page opens.
  for (let i = 0; (await page.getByLabel('Route builder URL').inputValue()) !== proc.swapUrl; i++) {
    if (i > 100) throw new Error('the swap page never got the route builder URL');
    await page.waitForTimeout(100);
  }
  await page.getByLabel('Token in').fill('WBNB');
  await page.getByText(`WBNB · ${chain.token('WBNB').address} · 18 decimals`).waitFor();
  await page.getByLabel('Token out').fill('USDT');
  await page.getByText(`USDT · ${chain.token('USDT').address} · 18 decimals`).waitFor();
  await page.getByLabel('Amount in').fill('800');
  await page.getByLabel('Sender').fill(chain.user.address);
  await page.getByRole('button', { name: 'Build route' }).click();
  await page.getByRole('figure', { name: 'Route diagram' }).waitFor({ timeout: 60_000 });
  // Building scrolled the result into view; the picture shows the form and the route from the top.
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.evaluate(`document.querySelectorAll('*').forEach((e) => { e.scrollTop = 0; })`);
  await page.screenshot({ path: path.join(OUT, 'swap.png') });
  console.log(`screenshots: ${path.relative(ROOT, path.join(OUT, 'chat.png'))}, ${path.relative(ROOT, path.join(OUT, 'swap.png'))}`);
} finally {
  await browser?.close();
  await proc?.stop();
  proc?.cleanup();
  await mock?.stop();
  await chain?.stop();
}
