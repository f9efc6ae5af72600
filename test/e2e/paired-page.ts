// The opening most browser tests share: start a real backend serving the UI under test, open it in
// Chromium and pair, either as a user does (typing the code the backend logged) or through the API
// (the page then starts with the credential a pairing would have stored). The pieces are exported
// for tests that need a step of their own in between (an axe check of the pairing screen, a context
// with other options, a pairing that is itself under test).
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { api, BackendProcess, type StartOptions } from '../helpers/backend-process.js';
import { buildRenderer, launchChromium, watchErrors } from './browser.js';
import { apiAs, pageCredential } from './chat-page-kit.js';

/** The window most tests use; a test's own context options are laid over it. */
export const DESKTOP_CONTEXT: BrowserContextOptions = { viewport: { width: 1280, height: 800 }, locale: 'en-US' };

/** A backend serving the UI under test (`options.env` laid over SERVICE_UI_DIR), once its pairing code is logged. */
export async function startUiBackend(options: StartOptions = {}): Promise<BackendProcess> {
  const uiDir = await buildRenderer();
  const proc = await BackendProcess.start({ ...options, env: { SERVICE_UI_DIR: uiDir, ...options.env } });
  try {
    await proc.waitForLine(/^pairing code: \d{6}/);
  } catch (err) {
    await proc.stop();
    proc.cleanup();
    throw err;
  }
  return proc;
}

/** Opens the backend's UI in `page`, types its pairing code and waits for the Chat page a pairing lands on. */
export async function pairInPage(page: Page, proc: BackendProcess): Promise<void> {
  await page.goto(proc.url + '/');
  await page.getByLabel('Pairing code').fill(proc.pairingCode()!);
  await page.getByRole('button', { name: 'Pair', exact: true }).click();
  await page.getByRole('heading', { name: 'Chat', level: 1 }).waitFor();
}

/** Claims the backend's pairing code through the API (what the pairing screen would do); returns the credential. */
export async function claimByApi(proc: BackendProcess): Promise<string> {
  const res = await api(proc.url, 'POST', '/api/pairing/claim', { body: { pairing_code: proc.pairingCode() } });
  if (res.status !== 200) throw new Error(`pairing failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.credential as string;
}

/** A context whose pages start paired with `credential` (stored under the key the UI reads). */
export async function pairedContext(browser: Browser, proc: BackendProcess, credential: string, options: BrowserContextOptions = {}) {
  const context = await browser.newContext({ ...DESKTOP_CONTEXT, ...options });
  await context.addInitScript({
    content: `localStorage.setItem(${JSON.stringify(`service.credential:${proc.url}`)}, ${JSON.stringify(credential)});`,
  });
  return context;
}

export interface PairedSetup {
  proc: BackendProcess;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors (watchErrors), for `assert.deepEqual(errors, [])`. */
  errors: string[];
  credential: string;
  /** The backend's API as this client (apiAs): throws on a status outside 2xx. */
  call: ReturnType<typeof apiAs>;
  /** Closes the browser, stops the backend and removes its data directory. */
  close(): Promise<void>;
}

/**
 * A backend, a browser and a paired page. `pair: 'ui'` (the default) opens the UI and pairs by
 * typing the code, ending on the Chat page; `pair: 'api'` claims through the API and leaves the page
 * blank, so the test sets the backend up first and then opens it. `onPage` runs before the first
 * navigation (to listen to requests, say).
 */
export async function openPaired(
  options: { backend?: StartOptions; context?: BrowserContextOptions; pair?: 'ui' | 'api'; onPage?(page: Page): void } = {},
): Promise<PairedSetup> {
  const proc = await startUiBackend(options.backend);
  let browser: Browser | undefined;
  try {
    browser = await launchChromium();
    const byApi = options.pair === 'api';
    const credentialFirst = byApi ? await claimByApi(proc) : '';
    const context = byApi
      ? await pairedContext(browser, proc, credentialFirst, options.context)
      : await browser.newContext({ ...DESKTOP_CONTEXT, ...options.context });
    const page = await context.newPage();
    const errors = watchErrors(page);
    options.onPage?.(page);
    if (!byApi) await pairInPage(page, proc);
    const credential = byApi ? credentialFirst : await pageCredential(page);
    const opened = browser;
    return {
      proc,
      browser,
      context,
      page,
      errors,
      credential,
      call: apiAs(proc.url, credential),
      async close() {
        await opened.close();
        await proc.stop();
        proc.cleanup();
      },
    };
  } catch (err) {
    await browser?.close();
    await proc.stop();
    proc.cleanup();
    throw err;
  }
}

/** A backend serving the UI under test, paired through the API (as startPaired, which serves no UI). */
export async function startPairedUi(options: StartOptions = {}): Promise<{ proc: BackendProcess; credential: string }> {
  const proc = await startUiBackend(options);
  return { proc, credential: await claimByApi(proc) };
}
