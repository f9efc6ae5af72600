import type { ToolImage } from '../tools/tool-source.js';

/** Tool results reach the model as one string of at most 100 KB (UTF-8). */
export const RESULT_LIMIT_BYTES = 100 * 1024;

/** Cuts text to `limit` UTF-8 bytes (never mid-character) and says so. */
export function cutResult(text: string, limit = RESULT_LIMIT_BYTES): string {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= limit) return text;
  const note = `\n[result cut: ${bytes} bytes, only the first ${limit} bytes are shown]`;
  const budget = limit - Buffer.byteLength(note, 'utf8');
  const buf = Buffer.from(text, 'utf8');
  // Back up while the first byte left out continues a character, so none is split.
  let end = budget;
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8') + note;
}

interface ContentItem {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; text?: string; blob?: string; mimeType?: string };
}

function itemText(item: ContentItem): string {
  switch (item.type) {
    case 'text':
      return item.text ?? '';
    case 'image':
      // The image itself goes along (resultImages); this line keeps its place in the text.
      return `[image ${item.mimeType ?? ''}, ${Math.floor(((item.data ?? '').length * 3) / 4)} bytes]`;
    case 'audio':
      return `[${item.type} ${item.mimeType ?? ''}, ${Math.floor(((item.data ?? '').length * 3) / 4)} bytes, not shown]`;
    case 'resource': {
      const r = item.resource ?? {};
      if (typeof r.text === 'string') return r.text;
      return `[resource ${r.uri ?? ''} ${r.mimeType ?? ''}, binary, not shown]`;
    }
    case 'resource_link':
      return `[resource link ${item.name ?? ''} ${item.uri ?? ''}]`;
    default:
      return JSON.stringify(item);
  }
}

/** An MCP `tools/call` result as the text the model gets back. */
export function resultText(result: { content?: unknown; structuredContent?: unknown; toolResult?: unknown }): string {
  const content = Array.isArray(result.content) ? (result.content as ContentItem[]) : [];
  if (content.length > 0) return content.map(itemText).join('\n');
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  if (result.toolResult !== undefined) return typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult);
  return '';
}

/** At most this many images of one result go to the model; the rest stay placeholders in the text. */
export const MAX_RESULT_IMAGES = 4;

/** The image content of an MCP `tools/call` result (base64 with its type). */
export function resultImages(result: { content?: unknown; toolResult?: unknown }): ToolImage[] {
  const content = Array.isArray(result.content) ? (result.content as ContentItem[]) : [];
  return content
    .filter((i) => i.type === 'image' && typeof i.data === 'string' && typeof i.mimeType === 'string')
    .slice(0, MAX_RESULT_IMAGES)
    .map((i) => ({ mime: i.mimeType!, data: i.data! }));
}
