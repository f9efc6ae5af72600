import katex from 'katex';
import { createElement, type ReactNode } from 'react';

// KaTeX is its own chunk, loaded by the first formula. It writes MathML only (no CSS or fonts needed:
// the browser lays MathML out), with `trust: false` so \href, \url, \includegraphics and \html… are
// refused. Its markup is parsed into an inert document (DOMParser: no script runs, nothing loads)
// and copied into React elements through an allow-list of MathML elements and attributes, so
// nothing of the string ever reaches innerHTML and no link, style or handler can pass.

const ELEMENTS = new Set([
  'math',
  'semantics',
  'mrow',
  'mi',
  'mn',
  'mo',
  'ms',
  'mtext',
  'mspace',
  'msup',
  'msub',
  'msubsup',
  'mfrac',
  'msqrt',
  'mroot',
  'mover',
  'munder',
  'munderover',
  'mtable',
  'mtr',
  'mtd',
  'mstyle',
  'mpadded',
  'mphantom',
  'menclose',
  'mmultiscripts',
  'mprescripts',
  'none',
  'merror',
]);

const ATTRIBUTES = new Set([
  'mathvariant',
  'stretchy',
  'fence',
  'separator',
  'lspace',
  'rspace',
  'width',
  'height',
  'depth',
  'voffset',
  'accent',
  'accentunder',
  'columnalign',
  'rowalign',
  'rowspacing',
  'columnspacing',
  'columnlines',
  'rowlines',
  'frame',
  'displaystyle',
  'scriptlevel',
  'linethickness',
  'minsize',
  'maxsize',
  'movablelimits',
  'notation',
  'largeop',
  'symmetric',
  'display',
]);

function convert(node: Node, key: string): ReactNode {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent;
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  const el = node as Element;
  const children = [...el.childNodes].map((child, i) => convert(child, `${key}.${i}`));
  const name = el.localName;
  // The TeX source annotation is not shown; unknown elements keep only their content.
  if (name === 'annotation' || name === 'annotation-xml') return null;
  if (!ELEMENTS.has(name)) return children;
  const props: Record<string, string> = { key };
  for (const attr of el.attributes) if (ATTRIBUTES.has(attr.name)) props[attr.name] = attr.value;
  return createElement(name, props, ...children);
}

/** A TeX formula as React MathML elements; a formula KaTeX cannot parse shows as its source. */
export function renderMath(tex: string, display: boolean): ReactNode {
  const markup = katex.renderToString(tex, { output: 'mathml', displayMode: display, throwOnError: false, trust: false, strict: 'ignore' });
  const doc = new DOMParser().parseFromString(markup, 'text/html');
  const math = doc.querySelector('math');
  if (!math) return tex;
  return convert(math, 'm');
}
