import { Marked, type Token, type Tokens } from 'marked';
import { memo, type ReactNode } from 'react';
import { CopyButton } from '../ui/controls';
import { useT } from '../i18n/i18n';
import { blockMath, inlineMath, type MathToken } from './markdown-math';
import { MathView, useHighlighted } from './rich-blocks';
import { CodeArtifact } from '../preview/code-artifact';
import { isWholeHtmlDocument, previewKind } from '../preview/protocol';

// Markdown to React elements, never to an HTML string: marked only tokenises, and every token
// becomes an element or plain text (highlighted code and math too: see rich-blocks.tsx). Raw HTML in a reply (`<img onerror=…>`) is shown as text, links
// other than http(s)/mailto are text, and images are links (nothing loads from a reply).

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', '#39': "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (m, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[name.toLowerCase()] ?? m;
  });
}

export function safeHref(href: string): string | null {
  try {
    const url = new URL(href);
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:' ? url.href : null;
  } catch {
    return null;
  }
}

function ExternalLink({ href, children }: { href: string; children: ReactNode }) {
  const safe = safeHref(href);
  if (!safe) return <>{children}</>;
  // target=_blank: a browser opens a new tab; the desktop shell's window-open handler sends
  // http(s) links to the system browser and never opens them inside the app.
  return (
    <a href={safe} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

function CodeBlock({ lang, code, complete = true }: { lang: string; code: string; complete?: boolean }) {
  const t = useT();
  const highlighted = useHighlighted(lang, code);
  const kind = previewKind(lang);
  // html, svg and mermaid blocks also preview, in a sandboxed frame (../preview/).
  if (kind) {
    return (
      <CodeArtifact kind={kind} lang={lang} code={code} complete={complete}>
        <pre>
          <code className={highlighted ? 'hljs' : undefined}>{highlighted ?? code}</code>
        </pre>
      </CodeArtifact>
    );
  }
  return (
    <div className="md-code">
      <div className="md-code-head">
        <span>{lang || t('chat.code')}</span>
        <CopyButton text={code} label={t('chat.copyCode')} />
      </div>
      <pre>
        <code className={highlighted ? 'hljs' : undefined}>{highlighted ?? code}</code>
      </pre>
    </div>
  );
}

function inline(tokens: Token[] | undefined, key = ''): ReactNode[] {
  return (tokens ?? []).map((tok, i) => renderInline(tok, `${key}${i}`));
}

function renderInline(tok: Token, key: string): ReactNode {
  switch (tok.type) {
    case 'text': {
      const t = tok as Tokens.Text;
      return t.tokens?.length ? <span key={key}>{inline(t.tokens, key)}</span> : decode(t.text);
    }
    case 'escape':
      return (tok as Tokens.Escape).text;
    case 'strong':
      return <strong key={key}>{inline((tok as Tokens.Strong).tokens, key)}</strong>;
    case 'em':
      return <em key={key}>{inline((tok as Tokens.Em).tokens, key)}</em>;
    case 'del':
      return <del key={key}>{inline((tok as Tokens.Del).tokens, key)}</del>;
    case 'codespan':
      return <code key={key}>{decode((tok as Tokens.Codespan).text)}</code>;
    case 'br':
      return <br key={key} />;
    case 'link': {
      const l = tok as Tokens.Link;
      return (
        <ExternalLink key={key} href={l.href}>
          {inline(l.tokens, key)}
        </ExternalLink>
      );
    }
    case 'image': {
      const img = tok as Tokens.Image;
      return (
        <ExternalLink key={key} href={img.href}>
          {img.text || img.href}
        </ExternalLink>
      );
    }
    case 'math': {
      const m = tok as MathToken;
      return <MathView key={key} tex={m.text} display={m.display} />;
    }
    case 'checkbox':
      return <input key={key} type="checkbox" checked={(tok as Tokens.Checkbox).checked} disabled aria-label="task" />;
    default:
      // html, tag and anything unknown: the source text, as text.
      return tok.raw;
  }
}

function renderBlock(tok: Token, key: string): ReactNode {
  switch (tok.type) {
    case 'space':
    case 'def':
      return null;
    case 'paragraph':
      return <p key={key}>{inline((tok as Tokens.Paragraph).tokens, key)}</p>;
    case 'heading': {
      const h = tok as Tokens.Heading;
      const Tag = `h${Math.min(6, Math.max(3, h.depth + 2))}` as 'h3';
      return <Tag key={key}>{inline(h.tokens, key)}</Tag>;
    }
    case 'code': {
      const c = tok as Tokens.Code;
      // A fence still streaming has no closing line yet: it previews once it is closed.
      const closed = c.codeBlockStyle === 'indented' || /\n[ ]{0,3}(`{3,}|~{3,})[ \t]*\n*$/.test(c.raw);
      return <CodeBlock key={key} lang={(c.lang ?? '').split(/\s/)[0]} code={c.text} complete={closed} />;
    }
    case 'blockquote':
      return <blockquote key={key}>{blocks((tok as Tokens.Blockquote).tokens, key)}</blockquote>;
    case 'hr':
      return <hr key={key} />;
    case 'list': {
      const l = tok as Tokens.List;
      const items = l.items.map((item, i) => <li key={i}>{blocks(item.tokens, `${key}-${i}`)}</li>);
      return l.ordered ? (
        <ol key={key} start={typeof l.start === 'number' ? l.start : undefined}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'table': {
      const tb = tok as Tokens.Table;
      return (
        <div className="md-table" key={key}>
          <table>
            <thead>
              <tr>
                {tb.header.map((c, i) => (
                  <th key={i}>{inline(c.tokens, `${key}h${i}`)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {tb.rows.map((row, r) => (
                <tr key={r}>
                  {row.map((c, i) => (
                    <td key={i}>{inline(c.tokens, `${key}r${r}c${i}`)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    }
    case 'text': {
      const t = tok as Tokens.Text;
      return <span key={key}>{t.tokens ? inline(t.tokens, key) : decode(t.text)}</span>;
    }
    case 'html':
      return (
        <p key={key} className="md-raw">
          {tok.raw}
        </p>
      );
    default:
      return renderInline(tok, key);
  }
}

function blocks(tokens: Token[] | undefined, key = ''): ReactNode[] {
  return (tokens ?? []).map((tok, i) => renderBlock(tok, `${key}.${i}`));
}

const markdown = new Marked({ gfm: true, breaks: false, extensions: [blockMath, inlineMath] });

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  // A reply that is one whole HTML document shows as an html block (Preview / Code), not as text.
  if (isWholeHtmlDocument(text)) {
    return (
      <div className="md">
        <CodeBlock lang="html" code={text.trim()} />
      </div>
    );
  }
  const tokens = markdown.lexer(text);
  return <div className="md">{blocks(tokens)}</div>;
});

export default Markdown;
