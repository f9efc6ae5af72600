import { describeLocation } from '../knowledge/knowledge-tools.js';
import { attachmentRefs } from './attachment-refs.js';
import type { AttachmentBlock, Citation, CompactionRecord, MessageView, PublicBlock, SessionMeta, StoredMessage } from './chat-types.js';
import { publicMessage } from './chat-types.js';
import { summary } from './session-store.js';
import { activeLeaf, branchItems, type SessionTree } from './session-tree.js';

export const EXPORT_FORMAT = 'service-session';

/** An attachment as the JSON export carries it (DESIGN 7). */
export interface ExportedAttachment {
  id: string;
  name: string;
  mime: string;
  sha256: string;
  data_base64: string;
}

/**
 * `GET …/export?format=json` (DESIGN 7): every message of every branch, parents first. `attachments`
 * is left empty here: the route streams them in one at a time (each may be 20 MiB).
 */
export function exportJson(meta: SessionMeta, tree: SessionTree) {
  const messages: MessageView[] = tree.items.map((item) =>
    item.role === 'system' ? publicMessage(item) : { ...publicMessage(item), parent_id: item.parent_id ?? null },
  );
  return {
    format: EXPORT_FORMAT,
    version: 1,
    session: { ...summary(meta), active_leaf: activeLeaf(tree, meta.active_leaf) },
    messages,
    attachments: [] as ExportedAttachment[],
  };
}

/** A fence longer than any run of backticks inside, so the content cannot close it. */
function fenced(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

/** Where the Markdown links an attachment: a file named in the list at the end. */
function attachmentPath(a: AttachmentBlock): string {
  return `attachments/${a.attachment_id.slice(0, 12)}-${a.name}`;
}

function attachmentLink(a: AttachmentBlock): string {
  const label = a.name.replace(/[[\]\\]/g, (c) => `\\${c}`);
  return `${a.type === 'image' ? '!' : ''}[${label}](<${attachmentPath(a).replace(/[<>]/g, encodeURIComponent)}>)`;
}

function blockMd(b: PublicBlock): string {
  switch (b.type) {
    case 'image':
    case 'file':
      return attachmentLink(b);
    case 'text':
      return b.text;
    case 'thinking':
      return b.text ? `<details>\n<summary>Thinking</summary>\n\n${b.text}\n\n</details>` : '';
    case 'tool_call':
      return `**Tool call** \`${b.server}/${b.tool}\`\n\n${fenced(JSON.stringify(b.arguments, null, 2), 'json')}`;
    case 'tool_result':
      return [`**Tool result**${b.ok ? '' : ' (error)'}\n\n${fenced(b.content)}`, ...(b.attachments ?? []).map(attachmentLink)].join(
        '\n\n',
      );
  }
}

/** A reply's numbered sources (DESIGN 13/14) as the list under it: web pages linked, passages by source and place. */
function sourcesMd(citations: Citation[] | undefined): string {
  if (!citations?.length) return '';
  const escape = (t: string) => t.replace(/[[\]\\]/g, (c) => `\\${c}`);
  const lines = [...citations]
    .sort((a, b) => a.n - b.n)
    .map((c) =>
      c.kind === 'web'
        ? `${c.n}. [${escape(c.title || c.url)}](<${c.url.replace(/[<>]/g, encodeURIComponent)}>)`
        : `${c.n}. ${escape(describeLocation(c.name, c.location))} (knowledge base ${c.kb_id}, source ${c.source_id}, chunk ${c.chunk_id})`,
    );
  return `**Sources**\n\n${lines.join('\n')}`;
}

function heading(m: StoredMessage): string {
  if (m.role === 'user') return '## You';
  if (m.role === 'tool') return '## Tool';
  return m.model ? `## Assistant (${m.model})` : '## Assistant';
}

/** `GET …/export?format=md`: the shown branch as Markdown, one heading per message. */
export function exportMarkdown(meta: SessionMeta, tree: SessionTree): string {
  const out: string[] = [`# ${meta.title}`, ''];
  const facts = [`Exported ${new Date().toISOString()}`];
  if (meta.model) facts.unshift(`Model: ${meta.model}`);
  out.push(facts.map((f) => `- ${f}`).join('\n'), '');
  const items = branchItems(tree, activeLeaf(tree, meta.active_leaf));
  for (const item of items) {
    if (item.role === 'system') {
      const c = item as CompactionRecord;
      out.push(`> Earlier messages were summarised here:\n>\n${c.summary.replace(/^/gm, '> ')}`, '');
      continue;
    }
    const view = publicMessage(item) as Extract<MessageView, { blocks: PublicBlock[] }>;
    const body = [...view.blocks.map(blockMd), sourcesMd(item.citations)].filter(Boolean).join('\n\n');
    out.push(heading(item), '', body || (item.error ? `_(failed: ${item.error.message})_` : '_(empty)_'), '');
  }
  const files = [...attachmentRefs(items).values()];
  if (files.length > 0) {
    out.push('## Attachments', '', 'The files the links above point to (the JSON export carries their bytes):', '');
    for (const a of files) out.push(`- \`${attachmentPath(a)}\`: ${a.name} (${a.mime}, sha256 ${a.attachment_id})`);
  }
  return `${out.join('\n').trimEnd()}\n`;
}
