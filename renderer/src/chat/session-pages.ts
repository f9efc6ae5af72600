import { isCompaction, type StoredMessage } from './chat-types';

// Pure helpers over a session's loaded messages (pages merged, the last user message).

export function idOf(m: StoredMessage): string | undefined {
  return m.id;
}

/** The newest page merged over what is loaded: older pages stay, the tail is replaced. */
export function mergeNewest(current: StoredMessage[], page: StoredMessage[]): { messages: StoredMessage[]; joined: boolean } {
  const first = page.find(idOf);
  if (!first) return { messages: current.length && page.length === 0 ? current : page, joined: true };
  const at = current.findIndex((m) => m.id === first.id);
  if (at >= 0) return { messages: [...current.slice(0, at), ...page], joined: true };
  return { messages: page, joined: current.length === 0 };
}

export function lastUserId(messages: StoredMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!isCompaction(m) && m.role === 'user') return m.id;
  }
  return undefined;
}

export function lastUserText(messages: StoredMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!isCompaction(m) && m.role === 'user') {
      return m.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') || null;
    }
  }
  return null;
}

/** The loaded messages up to and including `id` (`null`: none; an id not loaded: all). */
export function upTo(messages: StoredMessage[], id: string | null): StoredMessage[] {
  if (id === null) return [];
  const at = messages.findIndex((m) => m.id === id);
  return at < 0 ? messages : messages.slice(0, at + 1);
}

/** The newest reply's first message (the one its siblings share a parent with), if the branch ends in one. */
export function lastReplyId(messages: StoredMessage[]): string | undefined {
  let first: string | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (isCompaction(m)) continue;
    if (m.role === 'user') return first;
    first = m.id;
  }
  return first;
}
