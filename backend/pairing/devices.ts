import { randomUUID } from 'node:crypto';
import type { DeviceInfo } from './pairing-api.js';
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
export function createDevice(name: string, now: number): { device: DeviceRecord; credential: string } {
  const credential = newCredential();
  const at = new Date(now).toISOString();
  return { credential, device: { id: randomUUID(), name, credential_sha256: sha256Hex(credential), paired_at: at, last_seen_at: at } };
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
  return devices.map((d) => ({
    id: d.id,
    name: d.name,
    paired_at: d.paired_at,
    last_seen_at: d.last_seen_at,
    current: d.id === currentId,
  }));
}
