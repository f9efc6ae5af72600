// Which blocks the user switched to Preview, kept in localStorage so previews come back after a
// reload. Only a hash of each block is stored, the newest few hundred.

const KEY = 'artifact-previews';
const MAX = 300;

function hash(kind: string, code: string): string {
  let h = 0x811c9dc5;
  const text = `${kind}\n${code}`;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return `${(h >>> 0).toString(36)}.${text.length.toString(36)}`;
}

function load(): string[] {
  try {
    const list: unknown = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function previewChosen(kind: string, code: string): boolean {
  return load().includes(hash(kind, code));
}

export function rememberPreview(kind: string, code: string, on: boolean): void {
  const id = hash(kind, code);
  const list = load().filter((x) => x !== id);
  if (on) list.push(id);
  try {
    localStorage.setItem(KEY, JSON.stringify(list.slice(-MAX)));
  } catch {
    // Storage full or off: the choice lasts until the reload.
  }
}
