import { randomUUID } from 'node:crypto';
import type { DeviceInfo, DeviceRole } from './pairing-api.js';
import type { DeviceRecord } from './pairing-store.js';
import { digestEquals, newCredential, sha256Hex } from './secrets.js';

/** Pure helpers over the paired devices of `selfhost/pairing.json`. */

/**
 * The device `credential` belongs to. Every digest is compared (constant time each), so the answer's
 * timing does not tell which device matched, nor how many there are before it.
 */
export function deviceByCredential(devices: readonly DeviceRecord[], credential: string): DeviceRecord | undefined {
  let match: DeviceRecord | undefined;
  for (const device of devices) if (digestEquals(credential, device.credential_sha256)) match = device;
  return match;
}

/** A new device and its credential (returned once, stored only as a digest). */
export function createDevice(
  name: string,
  now: number,
  role: DeviceRole,
  invitedBy: string | null,
): { device: DeviceRecord; credential: string } {
  const credential = newCredential();
  const at = new Date(now).toISOString();
  const device: DeviceRecord = {
    id: randomUUID(),
    name,
    credential_sha256: sha256Hex(credential),
    paired_at: at,
    last_seen_at: at,
    role,
    invited_by: invitedBy,
  };
  return { credential, device };
}

/**
 * `id` and every device it invited, directly or through its invitees (DESIGN 16: revoking a device
 * revokes what it let in). Linear: one pass builds the children index, one walk visits each device once.
 */
export function withInvitees(devices: readonly DeviceRecord[], id: string): DeviceRecord[] {
  const children = new Map<string, DeviceRecord[]>();
  for (const d of devices) if (d.invited_by) children.set(d.invited_by, [...(children.get(d.invited_by) ?? []), d]);
  const root = devices.find((d) => d.id === id);
  if (!root) return [];
  const out: DeviceRecord[] = [];
  const seen = new Set<string>();
  const stack = [root];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (seen.has(next.id)) continue;
    seen.add(next.id);
    out.push(next);
    stack.push(...(children.get(next.id) ?? []));
  }
  return out;
}

/** The device list with `id`'s credential replaced; undefined when there is no such device. */
export function withNewCredential(
  devices: readonly DeviceRecord[],
  id: string,
): { devices: DeviceRecord[]; credential: string } | undefined {
  if (!devices.some((d) => d.id === id)) return undefined;
  const credential = newCredential();
  return { credential, devices: devices.map((d) => (d.id === id ? { ...d, credential_sha256: sha256Hex(credential) } : d)) };
}

export function deviceInfos(devices: readonly DeviceRecord[], currentId: string | undefined): DeviceInfo[] {
  const names = new Map(devices.map((d) => [d.id, d.name]));
  return devices.map((d) => ({
    id: d.id,
    name: d.name,
    paired_at: d.paired_at,
    last_seen_at: d.last_seen_at,
    current: d.id === currentId,
    role: d.role,
    invited_by: d.invited_by,
    invited_by_name: d.invited_by ? (names.get(d.invited_by) ?? null) : null,
  }));
}
