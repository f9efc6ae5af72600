import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { AimockFixture } from '../helpers/aimock.js';
import { api } from '../helpers/backend-process.js';
import { ROOT } from './browser.js';

/** A long reply that streams for several seconds (stop it, reload during it). */
export const STORY =
  'Once upon a time a careful engineer wrote a streaming reply. ' +
  Array.from({ length: 40 }, (_, i) => `Sentence number ${i + 1} keeps the reader waiting a little longer.`).join(' ') +
  ' THE END.';

export const XSS = 'Look: <img src=x onerror="window.__xss=1"> and <script>window.__xss=2</script> **bold** done.';

/** aimock answers by the last user message (substring match, first fixture wins). */
export const CHAT_FIXTURES: AimockFixture[] = [
  {
    match: { userMessage: 'hello zebrafish' },
    response: {
      content:
        '**Hello** there! Here is some code:\n\n```js\nconsole.log("hi");\n```\n\nRead [the docs](https://example.com/docs) or [this](javascript:alert(1)).',
    },
  },
  { match: { userMessage: 'slow story' }, response: { content: STORY }, streamingProfile: { ttft: 200, tps: 25 } },
  { match: { userMessage: 'reload story' }, response: { content: STORY }, streamingProfile: { ttft: 200, tps: 40 } },
  {
    match: { userMessage: 'think first' },
    response: { reasoning: 'The user wants a number. Forty-two is the classic answer.', content: 'The answer is 42.' },
  },
  {
    match: { userMessage: 'fail once', sequenceIndex: 0 },
    response: { error: { message: 'Invalid API key provided.', type: 'authentication_error', code: 'invalid_api_key' }, status: 401 },
  },
  { match: { userMessage: 'fail once', sequenceIndex: 1 }, response: { content: 'Recovered after the retry.' } },
  { match: { userMessage: 'show html' }, response: { content: XSS } },
  { match: { userMessage: '你好' }, response: { content: '你好！我是你的助手，有什么可以帮你？' } },
  { match: { userMessage: 'second chat' }, response: { content: 'This is the second chat.' } },
];

/** The credential the page stored after pairing (tests then set up the backend through the API). */
export async function pageCredential(page: Page): Promise<string> {
  // A string: the root tsconfig has no DOM lib.
  const value = (await page.evaluate(`(() => {
    for (let i = 0; i < localStorage.length; i++) {
      const v = localStorage.getItem(localStorage.key(i));
      if (v && v.startsWith('svc_')) return v;
    }
    return null;
  })()`)) as string | null;
  if (!value) throw new Error('no credential in localStorage');
  return value;
}

export function apiAs(base: string, credential: string) {
  return async (method: string, pathname: string, body?: unknown): Promise<any> => {
    const res = await api(base, method, pathname, { credential, body });
    if (res.status < 200 || res.status > 299) throw new Error(`${method} ${pathname}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
}

/** The provider `mock` (compat, aimock at `mockUrl`) with one model `m1` of the given fields. */
export function mockProvider(mockUrl: string, model: Record<string, unknown>) {
  return { id: 'mock', name: 'Mock', type: 'compat', base_url: `${mockUrl}/v1`, api_key: 'sk-test-key', models: [{ id: 'm1', ...model }] };
}

/** Runs axe-core in the page; returns the serious and critical violations. */
export async function axeViolations(page: Page): Promise<{ id: string; impact: string; help: string; nodes: string[] }[]> {
  const source = readFileSync(path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  // Evaluated, not a <script> tag: the UI's CSP (script-src 'self') refuses inline scripts.
  await page.evaluate(source);
  const result =
    (await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
    .then(r => r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ')) })))`)) as {
      id: string;
      impact: string;
      help: string;
      nodes: string[];
    }[];
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
