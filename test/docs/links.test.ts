// The manual is README.md plus docs/: every relative link in it (pages, pictures, anchors) must lead
// somewhere, so moving a page or renaming a heading cannot leave a reader at a dead end.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** README.md and every Markdown file under docs/, relative to the repository. */
function manualPages(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f));
  return ['README.md', ...docs];
}

/** Markdown text with fenced and inline code removed: links inside code are examples, not links. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of markdown.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** `[text](target)` and `![alt](target)` targets that stay inside the repository. */
function relativeLinks(markdown: string): string[] {
  const targets: string[] = [];
  for (const m of prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    targets.push(target);
  }
  return targets;
}

function brokenLinks(page: string): string[] {
  const text = readFileSync(path.join(ROOT, page), 'utf8');
  const broken: string[] = [];
  for (const target of relativeLinks(text)) {
    const [file, anchor] = target.split('#', 2);
    const resolved = file === '' ? path.join(ROOT, page) : path.resolve(path.dirname(path.join(ROOT, page)), decodeURI(file));
    if (!resolved.startsWith(ROOT) || !existsSync(resolved)) {
      broken.push(`${page}: ${target} (no such file)`);
      continue;
    }
    if (anchor !== undefined && statSync(resolved).isFile() && resolved.endsWith('.md')) {
      if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
    }
  }
  return broken;
}

describe('the manual (README.md and docs/)', () => {
  it('every relative link and picture leads to a file and heading that exist', () => {
    const pages = manualPages();
    assert.ok(pages.length > 5, 'docs/ holds the manual');
    assert.deepEqual(pages.flatMap(brokenLinks), []);
  });

  it('every page under docs/ is reachable from the README', () => {
    const reachable = new Set<string>();
    const queue = ['README.md'];
    while (queue.length > 0) {
      const page = queue.pop()!;
      if (reachable.has(page)) continue;
      reachable.add(page);
      for (const target of relativeLinks(readFileSync(path.join(ROOT, page), 'utf8'))) {
        const file = target.split('#')[0];
        if (!file.endsWith('.md')) continue;
        queue.push(path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, page)), decodeURI(file))));
      }
    }
    assert.deepEqual(
      manualPages().filter((p) => !reachable.has(p)),
      [],
    );
  });

  it('the README stays a front page: at most 300 lines', () => {
    const lines = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length;
    assert.ok(lines <= 300, `README.md has ${lines} lines`);
  });

  it('anchors follow GitHub: punctuation dropped, repeats numbered', () => {
    assert.deepEqual(
      [...anchorsOf('# Route quality and speed: `npm run bench:routes`\n## A\n## A\n')],
      ['route-quality-and-speed-npm-run-benchroutes', 'a', 'a-1'],
    );
  });
});
