import { providerCallId, ProviderError, type Block, type MediaBlock } from './llm-types.js';

/** Thinking budget → reasoning effort (DESIGN 6): < 4096 low, < 16384 medium, else high. */
export function effortFor(budget: number): 'low' | 'medium' | 'high' {
  return budget < 4096 ? 'low' : budget < 16384 ? 'medium' : 'high';
}

/** JSON of one SSE data field; anything else is a malformed stream. */
export function parseData<T>(data: string): T {
  try {
    const value = JSON.parse(data) as unknown;
    if (typeof value === 'object' && value !== null) return value as T;
  } catch {
    // fall through
  }
  throw new ProviderError('provider_error', `The provider sent a malformed stream (not JSON: ${JSON.stringify(data.slice(0, 60))}).`);
}

/** Tool-call arguments: a JSON object, or the raw text kept for the error result. */
export function jsonArgs(text: string, name: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  return { [INVALID_ARGS]: `arguments of ${name} are not a JSON object: ${text.slice(0, 200)}` };
}

/** Key marking arguments that did not parse; the turn loop answers such a call with an error. */
export const INVALID_ARGS = '__invalid_arguments';

/** Result text for protocols without an error flag. */
export function toolResultText(b: Extract<Block, { type: 'tool_result' }>): string {
  return b.ok ? b.content : `Error: ${b.content}`;
}

/** `data:<mime>;base64,…`: how compat and responsemode carry an image or a file inline. */
export function dataUrl(m: MediaBlock): string {
  return `data:${m.mime};base64,${m.data}`;
}

/**
 * Protocols whose tool results are text only (compat, responsemode) get a tool's images in a user
 * message right after the results, introduced by this line.
 */
export function toolImagesIntro(b: Extract<Block, { type: 'tool_result' }>): string {
  const n = b.media?.length ?? 0;
  return `The tool call ${providerCallId(b)} returned ${n === 1 ? 'this image' : `these ${n} images`}:`;
}
