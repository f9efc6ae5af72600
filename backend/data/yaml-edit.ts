import { isMap, isScalar, isSeq, type Document, type Node } from 'yaml';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface AssignOptions {
  /** Keys the schema knows: absent from the new value → removed. Unknown keys always stay. */
  prune?: ReadonlySet<string>;
}

/**
 * Writes `value` into an existing YAML node in place, so comments, key order and keys the
 * schema does not know survive an API edit. Returns the node to store (new only when the
 * shape changed). List items that carry an `id` are matched by id, others by position.
 */
export function assignNode(doc: Document, node: unknown, value: unknown, options: AssignOptions = {}): Node {
  if (isScalar(node) && (value === null || typeof value !== 'object')) {
    node.value = value;
    return node;
  }
  if (isMap(node) && isPlainObject(value)) {
    if (node.flow && node.items.length === 0) node.flow = false;
    for (const [key, v] of Object.entries(value)) {
      if (v === undefined) continue;
      const existing = node.get(key, true);
      if (existing === undefined) node.set(key, doc.createNode(v));
      else {
        const next = assignNode(doc, existing, v, options);
        if (next !== existing) node.set(key, next);
      }
    }
    if (options.prune) {
      for (const pair of [...node.items]) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        if (options.prune.has(key) && value[key] === undefined) node.delete(key);
      }
    }
    return node;
  }
  if (isSeq(node) && Array.isArray(value)) {
    if (node.flow && value.length > 0) node.flow = false;
    const old = [...node.items];
    node.items = value.map((v, i) => {
      const id = isPlainObject(v) ? v.id : undefined;
      const match = id !== undefined ? old.find((item) => isMap(item) && item.get('id') === id) : old[i];
      return match !== undefined ? assignNode(doc, match, v, options) : doc.createNode(v);
    }) as typeof node.items;
    return node;
  }
  return doc.createNode(value) as Node;
}

/** Makes sure a top-level collection exists and is block style; returns it. */
export function ensureTopLevel(doc: Document, key: string, kind: 'seq' | 'map'): Node {
  if (!isMap(doc.contents)) doc.contents = doc.createNode({}) as typeof doc.contents;
  const existing = doc.get(key, true);
  if ((kind === 'seq' && isSeq(existing)) || (kind === 'map' && isMap(existing))) return existing as Node;
  const created = doc.createNode(kind === 'seq' ? [] : {}) as Node;
  doc.set(key, created);
  return created;
}
