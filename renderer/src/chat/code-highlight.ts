import type { LanguageFn } from 'highlight.js';
import type { ElementContent, Root } from 'hast';
import { createLowlight } from 'lowlight';
import { createElement, type ReactNode } from 'react';

// The highlighter is its own chunk, loaded by the first fenced code block; each language's grammar is
// another small chunk, loaded when a block in that language appears. Output is lowlight's tree
// (spans with class names and text), turned into React elements here: never an HTML string.

const lowlight = createLowlight();

const GRAMMARS: Record<string, () => Promise<{ default: LanguageFn }>> = {
  bash: () => import('highlight.js/lib/languages/bash'),
  c: () => import('highlight.js/lib/languages/c'),
  cpp: () => import('highlight.js/lib/languages/cpp'),
  csharp: () => import('highlight.js/lib/languages/csharp'),
  css: () => import('highlight.js/lib/languages/css'),
  diff: () => import('highlight.js/lib/languages/diff'),
  go: () => import('highlight.js/lib/languages/go'),
  java: () => import('highlight.js/lib/languages/java'),
  javascript: () => import('highlight.js/lib/languages/javascript'),
  json: () => import('highlight.js/lib/languages/json'),
  kotlin: () => import('highlight.js/lib/languages/kotlin'),
  markdown: () => import('highlight.js/lib/languages/markdown'),
  php: () => import('highlight.js/lib/languages/php'),
  python: () => import('highlight.js/lib/languages/python'),
  ruby: () => import('highlight.js/lib/languages/ruby'),
  rust: () => import('highlight.js/lib/languages/rust'),
  solidity: () => import('highlight.js/lib/languages/javascript'),
  sql: () => import('highlight.js/lib/languages/sql'),
  swift: () => import('highlight.js/lib/languages/swift'),
  typescript: () => import('highlight.js/lib/languages/typescript'),
  xml: () => import('highlight.js/lib/languages/xml'),
  yaml: () => import('highlight.js/lib/languages/yaml'),
};

const ALIASES: Record<string, string> = {
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  console: 'bash',
  'c++': 'cpp',
  cc: 'cpp',
  h: 'c',
  cs: 'csharp',
  'c#': 'csharp',
  golang: 'go',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  kt: 'kotlin',
  md: 'markdown',
  py: 'python',
  rb: 'ruby',
  rs: 'rust',
  sol: 'solidity',
  ts: 'typescript',
  tsx: 'typescript',
  html: 'xml',
  svg: 'xml',
  yml: 'yaml',
  patch: 'diff',
};

/** The grammar name for a fence's info string, or null when no grammar is bundled for it. */
export function grammarFor(lang: string): string | null {
  const name = lang.trim().toLowerCase();
  const resolved = ALIASES[name] ?? name;
  return Object.hasOwn(GRAMMARS, resolved) ? resolved : null;
}

const loading = new Map<string, Promise<void>>();

/** Loads (once) the grammar for a language; resolves false when there is none. */
export async function loadGrammar(lang: string): Promise<boolean> {
  const name = grammarFor(lang);
  if (!name) return false;
  if (!loading.has(name))
    loading.set(
      name,
      GRAMMARS[name]().then((m) => lowlight.register(name, m.default)),
    );
  await loading.get(name);
  return true;
}

/**
 * Code longer than this stays plain text. highlight.js's grammars are regular expressions run in
 * the page: linear for ordinary code, but some inputs cost far more ("(((…" in JavaScript: over a
 * second for 80,000 characters on a loaded machine, so tens of seconds for a 1 MB block).
 */
export const MAX_HIGHLIGHTED = 20_000;

/** lowlight's tree for a loaded language (synchronous: call after loadGrammar); null above MAX_HIGHLIGHTED. */
export function highlightTree(lang: string, code: string): Root | null {
  const name = grammarFor(lang);
  if (code.length > MAX_HIGHLIGHTED) return null;
  return name && lowlight.registered(name) ? lowlight.highlight(name, code) : null;
}

function toReact(nodes: ElementContent[], key: string): ReactNode[] {
  return nodes.map((node, i) => {
    if (node.type === 'text') return node.value;
    if (node.type !== 'element') return null;
    const children = toReact(node.children, `${key}.${i}`);
    // lowlight only makes <span class="hljs-…">; anything else keeps just its text.
    if (node.tagName !== 'span') return children;
    const classes = node.properties.className;
    const className = Array.isArray(classes)
      ? classes.filter((c) => typeof c === 'string' && /^hljs-[\w-]+$/.test(c)).join(' ')
      : undefined;
    return createElement('span', { key: `${key}.${i}`, className }, ...children);
  });
}

/** The highlighted code as React elements, or null (no grammar, or not loaded yet). */
export function highlightElements(lang: string, code: string): ReactNode[] | null {
  const tree = highlightTree(lang, code);
  return tree ? toReact(tree.children as ElementContent[], 'h') : null;
}
