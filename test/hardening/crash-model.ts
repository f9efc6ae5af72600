import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';

/** What the client may assume about one key after a crash: acknowledged writes are facts. */
export type Knowledge = { state: 'present'; value: unknown } | { state: 'absent' } | { state: 'unknown' };

export type Resource = 'provider' | 'profile' | 'workspace' | 'mcp' | 'skill';

/** The client's view: every acknowledged write, and what was in flight when the process died. */
export class CrashModel {
  readonly keys = new Map<string, Knowledge>();

  key(resource: Resource, id: string): string {
    return `${resource}:${id}`;
  }

  /** A write is sent: until its answer arrives the key may or may not change. */
  inFlight(resource: Resource, id: string): void {
    this.keys.set(this.key(resource, id), { state: 'unknown' });
  }

  acknowledged(resource: Resource, id: string, k: Knowledge): void {
    this.keys.set(this.key(resource, id), k);
  }

  /** After a restart: whatever the disk says about unknown keys is what they are now. */
  settle(read: (resource: Resource, id: string) => unknown): void {
    for (const [key, k] of this.keys) {
      if (k.state !== 'unknown') continue;
      const [resource, id] = key.split(/:(.*)/s) as [Resource, string];
      const value = read(resource, id);
      this.keys.set(key, value === undefined ? { state: 'absent' } : { state: 'present', value });
    }
  }

  check(read: (resource: Resource, id: string) => unknown, label: string): number {
    let checked = 0;
    for (const [key, k] of this.keys) {
      if (k.state === 'unknown') continue;
      const [resource, id] = key.split(/:(.*)/s) as [Resource, string];
      const value = read(resource, id);
      if (k.state === 'absent') assert.equal(value, undefined, `${label}: acknowledged delete of ${key} lost`);
      else assert.deepEqual(value, k.value, `${label}: acknowledged write of ${key} lost`);
      checked += 1;
    }
    return checked;
  }
}

/** Reads the files a restarted service would read; every one of them must parse. */
export function readDataDir(root: string): { read: (resource: Resource, id: string) => unknown; files: number; temps: string[] } {
  const temps: string[] = [];
  let files = 0;
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (name === 'trash' && dir === root) continue;
      if (name.startsWith('.tmp-')) temps.push(path.relative(root, full));
      else if (statSync(full).isDirectory()) walk(full);
      else {
        parseFile(full);
        files += 1;
      }
    }
  };
  walk(root);
  const config = parseYaml(path.join(root, 'config.yaml')) as { providers?: { id: string; name: string }[] };
  const globalMcp = JSON.parse(readFileSync(path.join(root, 'global_mcp_servers.json'), 'utf8')) as { mcpServers: Record<string, unknown> };
  const index = JSON.parse(readFileSync(path.join(root, 'workspaces.json'), 'utf8')) as { workspaces: { id: string; name: string }[] };
  const read = (resource: Resource, id: string): unknown => {
    switch (resource) {
      case 'provider':
        return config.providers?.find((p) => p.id === id)?.name;
      case 'profile': {
        const file = path.join(root, 'profiles', `${id}.yaml`);
        return existsSync(file) ? (parseYaml(file) as { timeout_seconds?: number }).timeout_seconds : undefined;
      }
      case 'workspace': {
        const entry = index.workspaces.find((w) => w.id === id);
        if (entry) assert.ok(existsSync(path.join(root, 'workspaces', id, 'workspace.json')), `workspace.json of ${id}`);
        return entry?.name;
      }
      case 'mcp':
        return globalMcp.mcpServers[id] === undefined ? undefined : (globalMcp.mcpServers[id] as { args?: string[] }).args?.[0];
      case 'skill': {
        const file = path.join(root, 'skills', id, 'SKILL.md');
        return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
      }
    }
  };
  return { read, files, temps };
}

function parseYaml(file: string): unknown {
  const doc = parseDocument(readFileSync(file, 'utf8'), { uniqueKeys: true });
  assert.deepEqual(
    doc.errors.map((e) => e.message),
    [],
    `${file} parses`,
  );
  return doc.toJS();
}

function parseFile(file: string): void {
  if (file.endsWith('.json')) {
    assert.doesNotThrow(() => JSON.parse(readFileSync(file, 'utf8')), `${file} parses`);
  } else if (file.endsWith('.yaml')) {
    parseYaml(file);
  } else if (file.endsWith('SKILL.md')) {
    assert.match(readFileSync(file, 'utf8'), /^---\nname: /, `${file} is whole`);
  }
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Deterministic random numbers for kill timing (seed logged so a run can be replayed). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
