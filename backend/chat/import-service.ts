import { createHash } from 'node:crypto';
import { z } from 'zod';
import { fieldPath } from '../http/validation.js';
import { attachmentRefs } from './attachment-refs.js';
import type { CompactionRecord, LogRecord, StoredBlock, StoredMessage } from './chat-types.js';
import { ImportError, type ImportedSession } from './import-kit.js';
import { EXPORT_FORMAT } from './session-export.js';

const str = (f: string) => z.string({ error: `${f} must be a string` });
const ID = /^[A-Za-z0-9_.:-]{1,200}$/;
const id = (f: string) => str(f).regex(ID, `${f} must be 1-200 letters, digits, ".", ":", "_" or "-"`);
const count = z.number().int().min(0);
const SHA256 = /^[0-9a-f]{64}$/;
const hash = (f: string) => str(f).regex(SHA256, `${f} must be a SHA-256 in hex (64 characters 0-9, a-f)`);

const AttachmentBlockSchema = z.object({
  type: z.enum(['image', 'file']),
  attachment_id: hash('attachment_id'),
  mime: str('mime'),
  name: str('name').min(1, 'name must not be empty').max(255, 'name must be at most 255 characters'),
});

const BlockSchema = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('text'), text: str('text') }),
    z.object({ type: z.literal('thinking'), text: str('text') }),
    z.object({
      type: z.literal('tool_call'),
      call_id: str('call_id'),
      server: str('server'),
      tool: str('tool'),
      arguments: z.record(z.string(), z.unknown(), { error: 'arguments must be an object' }),
    }),
    z.object({
      type: z.literal('tool_result'),
      call_id: str('call_id'),
      ok: z.boolean({ error: 'ok must be true or false' }),
      content: str('content'),
      attachments: z.array(AttachmentBlockSchema.extend({ type: z.literal('image') })).optional(),
    }),
    AttachmentBlockSchema.extend({ type: z.literal('image') }),
    AttachmentBlockSchema.extend({ type: z.literal('file') }),
  ],
  { error: 'type must be text, thinking, tool_call, tool_result, image or file' },
);

const positiveInt = (f: string) =>
  z
    .number({ error: `${f} must be a whole number ≥ 1` })
    .int(`${f} must be a whole number ≥ 1`)
    .min(1);

/** DESIGN 13/14: a reply's numbered sources, kept through export and import. */
const CitationSchema = z.discriminatedUnion(
  'kind',
  [
    z.object({ n: positiveInt('n'), kind: z.literal('web'), url: str('url'), title: str('title') }),
    z.object({
      n: positiveInt('n'),
      kind: z.literal('knowledge'),
      kb_id: str('kb_id'),
      source_id: str('source_id'),
      chunk_id: str('chunk_id'),
      name: str('name'),
      location: z
        .object({
          page: positiveInt('page').optional(),
          heading: z.array(str('heading')).optional(),
          line_start: positiveInt('line_start').optional(),
          line_end: positiveInt('line_end').optional(),
          file: str('file').optional(),
        })
        .optional(),
    }),
  ],
  { error: 'kind must be web or knowledge' },
);

const MessageSchema = z.object({
  id: id('id'),
  role: z.enum(['user', 'assistant', 'tool'], { error: 'role must be user, assistant, tool or system' }),
  created_at: str('created_at'),
  parent_id: id('parent_id').nullable(),
  blocks: z.array(BlockSchema, { error: 'blocks must be a list' }),
  usage: z.object({ input: count, output: count, cache_read: count, cache_write: count, reasoning: count }).partial().optional(),
  model: str('model').optional(),
  turn_id: str('turn_id').optional(),
  interrupted: z.boolean().optional(),
  error: z.object({ code: str('code'), message: str('message') }).optional(),
  citations: z.array(CitationSchema, { error: 'citations must be a list' }).optional(),
  knowledge_bases: z.array(str('knowledge_bases'), { error: 'knowledge_bases must be a list of ids' }).optional(),
});

const CompactionSchema = z.object({
  id: id('id'),
  role: z.literal('system'),
  kind: z.literal('compaction', { error: 'kind must be "compaction"' }),
  created_at: str('created_at'),
  summary: str('summary'),
  through_message_id: id('through_message_id'),
});

const ExportSchema = z.object({
  format: z.literal(EXPORT_FORMAT, { error: `format must be "${EXPORT_FORMAT}"` }),
  version: z.literal(1, { error: 'version must be 1' }),
  session: z.object({
    title: str('title').max(200, 'title must be at most 200 characters'),
    created_at: str('created_at').optional(),
    updated_at: str('updated_at').optional(),
    model: str('model').nullable().optional(),
    active_leaf: id('active_leaf').nullable().optional(),
  }),
  messages: z.array(z.union([CompactionSchema, MessageSchema], { error: 'each message must be a message or a compaction record' }), {
    error: 'messages must be a list',
  }),
  attachments: z
    .array(
      z.object({
        id: hash('id'),
        name: str('name'),
        mime: str('mime'),
        sha256: hash('sha256'),
        data_base64: str('data_base64').regex(/^[A-Za-z0-9+/]*={0,2}$/, 'data_base64 must be base64'),
      }),
      { error: 'attachments must be a list' },
    )
    .optional(),
});

/** Our JSON export back into a session: the same tree, ids and shown branch. Parents come before children. */
export function convertServiceExport(value: unknown): ImportedSession {
  const parsed = ExportSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = fieldPath(issue?.path ?? []);
    throw new ImportError(path, `${path || 'The file'}: ${issue?.message ?? 'invalid'}`);
  }
  const { session, messages } = parsed.data;
  const seen = new Set<string>();
  const records: LogRecord[] = [];
  const hasChild = new Set<string>();
  let model: string | null = session.model ?? null;
  messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    if (seen.has(m.id)) throw new ImportError(`${at}.id`, `${at}.id ${m.id} appears twice.`);
    if (m.role === 'system') {
      if (!seen.has(m.through_message_id))
        throw new ImportError(`${at}.through_message_id`, `${at}.through_message_id must name an earlier message.`);
      seen.add(m.id);
      const record: CompactionRecord = { ...m, tokens_before: 0, tokens_after: 0 };
      records.push({ t: 'compaction', c: record });
      return;
    }
    if (m.parent_id !== null && !seen.has(m.parent_id))
      throw new ImportError(`${at}.parent_id`, `${at}.parent_id must name an earlier message.`);
    seen.add(m.id);
    if (m.parent_id) hasChild.add(m.parent_id);
    const message: StoredMessage = {
      ...m,
      blocks: m.blocks as StoredBlock[],
      usage: m.usage && { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0, ...m.usage },
    };
    if (message.usage === undefined) delete message.usage;
    if (m.model && m.role === 'assistant') model = m.model;
    records.push({ t: 'message', m: message });
  });
  const stored = records.filter((r): r is Extract<LogRecord, { t: 'message' }> => r.t === 'message');
  if (session.active_leaf && !stored.some((r) => r.m.id === session.active_leaf))
    throw new ImportError('session.active_leaf', 'session.active_leaf must name a message of the file.');
  const now = new Date().toISOString();
  const files = checkedFiles(parsed.data.attachments ?? [], records);
  return {
    title: session.title.trim() || 'Imported chat',
    created_at: session.created_at ?? now,
    updated_at: session.updated_at ?? now,
    records,
    activeLeaf: session.active_leaf ?? stored.at(-1)?.m.id ?? null,
    messageCount: stored.length,
    branches: stored.filter((r) => !hasChild.has(r.m.id)).length,
    model,
    notes: new Map(),
    files,
  };
}

/**
 * The files of the export, each matching its hash, and every one a message refers to present: a
 * file that does not hash to its id was changed or cut, and importing it would store other bytes.
 */
function checkedFiles(
  list: NonNullable<z.infer<typeof ExportSchema>['attachments']>,
  records: LogRecord[],
): NonNullable<ImportedSession['files']> {
  const byId = new Map<string, NonNullable<ImportedSession['files']>[number]>();
  list.forEach((a, k) => {
    const at = `attachments[${k}]`;
    if (a.sha256 !== a.id) throw new ImportError(`${at}.sha256`, `${at}.sha256 must equal its id.`);
    const bytes = Buffer.from(a.data_base64, 'base64');
    if (createHash('sha256').update(bytes).digest('hex') !== a.id)
      throw new ImportError(`${at}.data_base64`, `${at}.data_base64 does not hash to its sha256: the file was changed or cut.`);
    if (!byId.has(a.id)) byId.set(a.id, { id: a.id, name: a.name, bytes, path: at });
  });
  // Records are in the file's order, one per entry of `messages`.
  records.forEach((r, i) => {
    if (r.t !== 'message') return;
    for (const [id, ref] of attachmentRefs([r.m])) {
      if (!byId.has(id))
        throw new ImportError(
          `messages[${i}].blocks`,
          `messages[${i}] refers to the attachment ${ref.name} (${id.slice(0, 12)}…), which the file does not carry.`,
        );
    }
  });
  return [...byId.values()];
}
