import { useEffect, useMemo, useState, type ReactNode } from 'react';

// Code highlighting and math render from chunks loaded on first use; until then the source shows
// as plain text, so nothing waits on them and the first load stays small.

type Highlighter = typeof import('./code-highlight');
type MathRenderer = typeof import('./math-render');

let highlighter: Highlighter | null = null;
let mathRenderer: MathRenderer | null = null;

export function useHighlighted(lang: string, code: string): ReactNode[] | null {
  const [loaded, setLoaded] = useState<{ lang: string; mod: Highlighter } | null>(null);
  useEffect(() => {
    if (!lang) return;
    let live = true;
    void import('./code-highlight').then(async (mod) => {
      highlighter = mod;
      if ((await mod.loadGrammar(lang)) && live) setLoaded({ lang, mod });
    });
    return () => {
      live = false;
    };
  }, [lang]);
  // Recomputed when this block's grammar arrives: the module may be there before the grammar is.
  const current = loaded?.lang === lang ? loaded : null;
  return useMemo(() => {
    const mod = current?.mod ?? highlighter;
    return mod && lang ? mod.highlightElements(lang, code) : null;
  }, [current, lang, code]);
}

export function MathView({ tex, display }: { tex: string; display: boolean }) {
  const [mod, setMod] = useState<MathRenderer | null>(mathRenderer);
  useEffect(() => {
    if (mod) return;
    let live = true;
    void import('./math-render').then((m) => {
      mathRenderer = m;
      if (live) setMod(m);
    });
    return () => {
      live = false;
    };
  }, [mod]);
  const rendered = useMemo(() => (mod ? mod.renderMath(tex, display) : null), [mod, tex, display]);
  if (display) return <div className="md-math">{rendered ?? <code className="md-math-src">{tex}</code>}</div>;
  return <span className="md-math-inline">{rendered ?? <code className="md-math-src">{tex}</code>}</span>;
}
