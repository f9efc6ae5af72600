// The desktop app in a real Electron (`npm run test:electron`, where an Electron binary is installed):
// the built main bundle opens its window, starts the bundled backend under the supervisor, reads the
// pairing code from the log ring so the renderer pairs in one click, streams a chat turn that calls a
// real stdio tool server, has its tray and quick-ask window, and leaves no process behind on quit.
// Not part of `npm test` (the file name does not end in .test.js): scripts/test-electron.mjs runs it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { Aimock } from '../helpers/aimock.js';
import { tempDir } from '../helpers/backend-process.js';
import { ROOT } from '../e2e/browser.js';

const require = createRequire(import.meta.url);
const EVERYTHING = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const LONG = 60_000;

/** The command lines of every process on this machine (to find what quitting left behind). */
function processCommandLines(): string[] {
  if (process.platform === 'win32') {
    const out = execFileSync(
      'powershell.exe',
      ['-NoProfile', '-Command', 'Get-CimInstance Win32_Process | ForEach-Object { $_.CommandLine }'],
      {
        encoding: 'utf8',
      },
    );
    return out.split(/\r?\n/).filter(Boolean);
  }
  return execFileSync('ps', ['-A', '-o', 'args='], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = LONG): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the desktop app in Electron', { timeout: 240_000 }, () => {
  let mock: Aimock;
  let app: ElectronApplication;
  let page: Page;
  let home: string;
  let dataDir: string;
  let backendPid: number;
  /** A marker in the tool server's command line, unique to this run. */
  let marker: string;

  before(async () => {
    mock = await Aimock.start([
      { match: { userMessage: 'add two and three', hasToolResult: true }, response: { content: 'The tool says the sum is 5.' } },
      {
        match: { userMessage: 'add two and three', hasToolResult: false },
        response: { toolCalls: [{ name: 'ev__get-sum', arguments: { a: 2, b: 3 } }] },
      },
    ]);
    // A home of its own: the data directory (~/.service) and Electron's userData start empty.
    home = tempDir('svc-electron-home-');
    dataDir = path.join(home, '.service');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(
      path.join(dataDir, 'config.yaml'),
      [
        'providers:',
        '  - id: mock',
        '    name: Mock',
        '    type: compat',
        `    base_url: ${mock.url}/v1`,
        '    api_key: sk-test-key',
        '    models:',
        '      - {id: m1, name: M1, context_window: 32000, supports_tools: true}',
        'defaults: {provider: mock, model: m1}',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    marker = path.join(tempDir('svc-electron-tool-'), 'marker');
    writeFileSync(
      path.join(dataDir, 'global_mcp_servers.json'),
      JSON.stringify({ mcpServers: { ev: { command: process.execPath, args: [EVERYTHING, 'stdio', marker], approval: 'auto' } } }),
      { mode: 0o600 },
    );
    // scripts/test-electron.mjs found the binary (without electron's download on a miss).
    const executablePath = process.env.ELECTRON_PATH;
    assert.ok(executablePath, 'run through npm run test:electron (it sets ELECTRON_PATH)');
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      HOME: home,
      USERPROFILE: home,
      APPDATA: path.join(home, 'AppData', 'Roaming'),
      LOCALAPPDATA: path.join(home, 'AppData', 'Local'),
      XDG_CONFIG_HOME: path.join(home, '.config'),
    };
    delete env.ELECTRON_RUN_AS_NODE;
    // Chromium refuses to run as root without it (CI containers).
    const rootArgs = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
    app = await _electron.launch({
      executablePath,
      args: [...rootArgs, path.join(ROOT, 'dist-app', 'main', 'index.js')],
      cwd: ROOT,
      env,
      timeout: LONG,
    });
    page = await app.firstWindow({ timeout: LONG });
  });

  after(async () => {
    await app?.close().catch(() => undefined);
    await mock?.stop();
  });

  it('opens its window on the bundled renderer and starts the backend under the supervisor', async () => {
    assert.match(page.url(), /^app:\/\/renderer\//);
    const lockFile = path.join(dataDir, 'selfhost', 'instance.lock');
    const lock = await until('the backend to write its instance lock with its address', () => {
      if (!existsSync(lockFile)) return undefined;
      const parsed = JSON.parse(readFileSync(lockFile, 'utf8')) as { pid: number; url?: string };
      return parsed.url ? parsed : undefined;
    });
    backendPid = lock.pid;
    assert.ok(alive(backendPid));
    const app_pid = await app.evaluate(() => process.pid);
    assert.notEqual(backendPid, app_pid, 'the backend runs in its own process');
    assert.equal((await fetch(`${lock.url}/health`)).status, 200);
  });

  it('pairs in one click with the code the app read from the backend log', async () => {
    await page.getByRole('button', { name: 'Pair with the bundled backend' }).click({ timeout: LONG });
    await page.getByRole('heading', { name: 'Chat', level: 1 }).waitFor({ timeout: LONG });
  });

  it('streams a chat turn from the mock provider, with a call to the stdio tool server', async () => {
    await page.getByText('No workspace yet').waitFor({ timeout: LONG });
    await page.getByLabel('Workspace name').fill('Desk');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('button', { name: 'New chat' }).first().click();
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill('add two and three');
    await message.press('Enter');
    const conversation = page.getByRole('region', { name: 'Conversation' });
    await conversation.getByText('The tool says the sum is 5.').waitFor({ timeout: LONG });
    assert.ok(
      processCommandLines().some((line) => line.includes(marker)),
      'the tool server runs while the app does',
    );
  });

  it('has its tray and the quick-ask window', async () => {
    const settings = (await page.evaluate(`window.serviceApp.desktop.getSettings()`)) as { ok: boolean; value: { tray: boolean } };
    assert.equal(settings.value.tray, true, 'the tray is up');
    const opened = app.waitForEvent('window', { timeout: LONG });
    await app.evaluate(({ Menu }) => Menu.getApplicationMenu()?.getMenuItemById('quick-ask')?.click());
    const quickAsk = await opened;
    assert.match(quickAsk.url(), /#\/?quick-ask$/);
    await quickAsk.getByRole('heading', { name: 'Quick ask', level: 1 }).waitFor({ timeout: LONG });
  });

  it('quits leaving no backend and no tool-server process', async () => {
    await app.close();
    await until('the backend to exit', () => !alive(backendPid), 15_000);
    await until('the tool server to exit', () => !processCommandLines().some((line) => line.includes(marker)), 15_000);
    assert.equal(existsSync(path.join(dataDir, 'selfhost', 'instance.lock')), false, 'the lock is removed on exit');
  });
});
