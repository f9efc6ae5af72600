import type { LogRecord, StoredBlock as Block, StoredMessage } from './chat-types.js';
import { ImportError, IdMaker, isoFromSeconds, type ImportedSession } from './import-kit.js';

/** Lets the event loop run every `every` calls: a conversation of any size never holds it long. */
function breather(every = 1000): () => Promise<void> | undefined {
  let n = 0;
  return () => (++n % every === 0 ? new Promise<void>((resolve) => setImmediate(resolve)) : undefined);
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks one conversation of `conversations.json`; the first problem is a 400 naming its path. */
async function check(conv: unknown, at: string): Promise<Json & { mapping: Record<string, Json> }> {
  if (!isObject(conv)) throw new ImportError(at, `${at} must be an object (a conversation).`);
  if (conv.title !== undefined && conv.title !== null && typeof conv.title !== 'string')
    throw new ImportError(`${at}.title`, `${at}.title must be a string.`);
  if (!isObject(conv.mapping)) throw new ImportError(`${at}.mapping`, `${at}.mapping must be an object of nodes.`);
  if (conv.current_node !== undefined && conv.current_node !== null && typeof conv.current_node !== 'string')
    throw new ImportError(`${at}.current_node`, `${at}.current_node must be a node id or null.`);
  const mapping = conv.mapping;
  const pause = breather();
  for (const [key, node] of Object.entries(mapping)) {
    await pause();
    const p = `${at}.mapping.${key}`;
    if (!isObject(node)) throw new ImportError(p, `${p} must be an object (a node).`);
    if (node.parent !== undefined && node.parent !== null && (typeof node.parent !== 'string' || !(node.parent in mapping)))
      throw new ImportError(`${p}.parent`, `${p}.parent must be null or the id of a node in mapping.`);
    if (node.children !== undefined) {
      if (!Array.isArray(node.children)) throw new ImportError(`${p}.children`, `${p}.children must be a list of node ids.`);
      node.children.forEach((c, j) => {
        if (typeof c !== 'string' || !(c in mapping))
          throw new ImportError(`${p}.children[${j}]`, `${p}.children[${j}] names no node in mapping.`);
      });
    }
    const m = node.message;
    if (m === undefined || m === null) continue;
    const mp = `${p}.message`;
    if (!isObject(m)) throw new ImportError(mp, `${mp} must be an object or null.`);
    if (!isObject(m.author) || typeof m.author.role !== 'string')
      throw new ImportError(`${mp}.author.role`, `${mp}.author.role must be a string.`);
    if (!isObject(m.content) || typeof m.content.content_type !== 'string')
      throw new ImportError(`${mp}.content.content_type`, `${mp}.content.content_type must be a string.`);
    if (m.content.content_type === 'text' && !Array.isArray(m.content.parts))
      throw new ImportError(`${mp}.content.parts`, `${mp}.content.parts must be a list.`);
  }
  return conv as Json & { mapping: Record<string, Json> };
}

/** Our blocks for one ChatGPT message, or why it is left out. */
function blocksOf(m: Json, note: (reason: string) => void): Block[] | string {
  const role = (m.author as Json).role;
  const content = m.content as Json;
  const type = content.content_type as string;
  if (role === 'system') return 'system messages (hidden instructions)';
  if (role === 'tool') return 'tool messages (browsing, code runs and image tools: their output is not imported)';
  if (role !== 'user' && role !== 'assistant') return `messages from "${String(role).slice(0, 40)}"`;
  if (isObject(m.metadata) && m.metadata.is_visually_hidden_from_conversation === true) return 'hidden messages';
  const parts = Array.isArray(content.parts) ? content.parts : [];
  const textOfParts = () =>
    parts
      .map((p) => {
        if (typeof p === 'string') return p;
        const kind = isObject(p) && typeof p.content_type === 'string' ? p.content_type : 'attachment';
        note(`non-text parts such as images (${kind}), kept as a placeholder`);
        return `[${kind.replace(/_asset_pointer$/, '')}]`;
      })
      .join('\n');
  switch (type) {
    case 'text':
    case 'multimodal_text': {
      const text = textOfParts();
      return text.trim() ? [{ type: 'text', text }] : 'empty messages';
    }
    case 'code': {
      const text = typeof content.text === 'string' ? content.text : '';
      const lang = typeof content.language === 'string' && content.language !== 'unknown' ? content.language : '';
      return text.trim() ? [{ type: 'text', text: `\`\`\`${lang}\n${text}\n\`\`\`` }] : 'empty messages';
    }
    case 'thoughts': {
      const thoughts = Array.isArray(content.thoughts) ? content.thoughts : [];
      const text = thoughts
        .map((t) => (isObject(t) ? [t.summary, t.content].filter((x) => typeof x === 'string' && x).join('\n') : ''))
        .filter(Boolean)
        .join('\n\n');
      return text ? [{ type: 'thinking', text }] : 'empty messages';
    }
    default:
      return `"${type.slice(0, 40)}" content (only text is imported)`;
  }
}

/**
 * One ChatGPT conversation as a session: every node with a user or assistant message becomes a
 * message, a left-out node's children hang from its nearest kept ancestor, siblings keep their
 * order (edits and regenerations stay alternatives), and `current_node` becomes the shown branch.
 */
export async function convertChatGpt(raw: unknown, index: number): Promise<ImportedSession> {
  const at = `[${index}]`;
  const conv = await check(raw, at);
  const pause = breather();
  const mapping = conv.mapping;
  const convCreated = isoFromSeconds(conv.create_time) ?? new Date().toISOString();
  const title = typeof conv.title === 'string' && conv.title.trim() ? conv.title.trim().slice(0, 200) : 'Imported chat';
  const notes = new Map<string, number>();
  const note = (reason: string) => notes.set(reason, (notes.get(reason) ?? 0) + 1);

  // Children in the order their parent lists them (then any the parent forgot, in mapping order).
  const kids = new Map<string | null, string[]>();
  const roots: string[] = [];
  for (const [key, node] of Object.entries(mapping)) {
    await pause();
    const parent = typeof node.parent === 'string' ? node.parent : null;
    if (parent === null) roots.push(key);
    else {
      // Pushed in place: copying the list for each child made many siblings quadratic.
      const list = kids.get(parent);
      if (list) list.push(key);
      else kids.set(parent, [key]);
    }
  }
  for (const [parent, list] of kids) {
    const listed = (mapping[parent!]?.children as string[] | undefined) ?? [];
    const rank = new Map(listed.map((id, i) => [id, i]));
    list.sort((a, b) => (rank.get(a) ?? Infinity) - (rank.get(b) ?? Infinity));
  }

  const ids = new IdMaker();
  const kept = new Map<string, string>();
  const records: LogRecord[] = [];
  const hasChild = new Set<string>();
  let model: string | null = null;
  let updated = convCreated;
  const visited = new Set<string>();
  const stack: { key: string; parent: string | null }[] = roots.reverse().map((key) => ({ key, parent: null }));
  while (stack.length) {
    await pause();
    const { key, parent } = stack.pop()!;
    visited.add(key);
    const m = mapping[key].message;
    let mine = parent;
    if (isObject(m)) {
      const blocks = blocksOf(m, note);
      if (typeof blocks === 'string') note(blocks);
      else {
        const role = (m.author as Json).role as 'user' | 'assistant';
        const slug = isObject(m.metadata) && typeof m.metadata.model_slug === 'string' ? `chatgpt:${m.metadata.model_slug}` : undefined;
        const created = isoFromSeconds(m.create_time) ?? convCreated;
        const message: StoredMessage = {
          id: ids.next(),
          role,
          created_at: created,
          parent_id: parent,
          blocks,
          ...(slug ? { model: slug } : {}),
        };
        if (slug && role === 'assistant') model = slug;
        if (created > updated) updated = created;
        records.push({ t: 'message', m: message });
        if (parent) hasChild.add(parent);
        kept.set(key, message.id);
        mine = message.id;
      }
    }
    const children = kids.get(key) ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ key: children[i], parent: mine });
  }
  if (visited.size < Object.keys(mapping).length) {
    const loose = Object.keys(mapping).find((k) => !visited.has(k)) ?? '';
    throw new ImportError(`${at}.mapping.${loose}.parent`, `${at}.mapping: some nodes form a cycle and reach no root (such as ${loose}).`);
  }
  // The shown branch: current_node, or its nearest kept ancestor.
  let activeLeaf: string | null = null;
  let cursor = typeof conv.current_node === 'string' && conv.current_node in mapping ? conv.current_node : null;
  while (cursor && !activeLeaf) {
    activeLeaf = kept.get(cursor) ?? null;
    const p = mapping[cursor].parent;
    cursor = typeof p === 'string' ? p : null;
  }
  const messages = records.length;
  return {
    title,
    created_at: convCreated,
    updated_at: isoFromSeconds(conv.update_time) ?? updated,
    records,
    activeLeaf: activeLeaf ?? (messages ? (records[messages - 1] as { m: StoredMessage }).m.id : null),
    messageCount: messages,
    branches: records.filter((r) => r.t === 'message' && !hasChild.has(r.m.id)).length,
    model,
    notes,
  };
}
