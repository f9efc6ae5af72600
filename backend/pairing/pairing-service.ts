import { randomUUID } from 'node:crypto';
import { unwatchFile, watchFile } from 'node:fs';
import { ApiError } from '../http/errors.js';
import type { Logger } from '../log/logger.js';
import { digestEquals, sha256Hex } from './secrets.js';
import { PairingCode } from './pairing-code.js';
import { SerialQueue } from '../data/serial-queue.js';
import {
  emptyPairingState,
  loadPairingFile,
  PairingFileError,
  savePairingFile,
  type DeviceRecord,
  type PairingFile,
} from './pairing-store.js';
import { createDevice, deviceByCredential, deviceInfos, withInvitees, withNewCredential } from './devices.js';
import { FAILURE_WINDOW_MS, pruneFailures, throwIfThrottled } from './failure-budget.js';
import { InviteBook, INVITE_TTL_MS } from './invites.js';
import type { ClaimInput, DeviceInfo, DeviceRole, InviteResponse, JoinRequest, PairedResponse, PairingStatus } from './pairing-api.js';

export type { ClaimInput, PairingStatus } from './pairing-api.js';
export { FAILURE_BUDGET, FAILURE_WINDOW_MS } from './failure-budget.js';
export const CODE_TTL_MS = 24 * 60 * 60 * 1000;
export const FAILURES_PER_CODE = 5;
/** last_seen_at is written at most this often per device (not on every request). */
const SEEN_RESOLUTION_MS = 60_000;

export interface PairingOptions {
  file: string;
  logger: Logger;
  /** Bootstrap secret configured for managed deployments (env or file), if any. */
  bootstrapSecret?: string;
  /** Called after a bootstrap secret was consumed (removes the secret file). */
  onBootstrapConsumed?: () => Promise<void>;
  now?: () => number;
  codeTtlMs?: number;
  failureWindowMs?: number;
  inviteTtlMs?: number;
}

/** `revoked` names the devices whose credential stopped working (their sockets must close). */
export type PairingEvent = { type: 'paired' } | { type: 'unpaired' } | { type: 'revoked'; deviceIds: string[] };
type Listener = (event: PairingEvent) => void;

/**
 * The pairing state machine (spec section 3): unpaired ⇄ paired, with a 6-digit code logged while
 * unpaired, renewed on expiry and rotated after repeated failures. Paired means at least one device;
 * each device has its own credential, more join through one-time invites (DESIGN section 11). Claims
 * and joins share one global failure budget, whoever sends them.
 */
export class PairingService {
  private state: PairingFile = emptyPairingState('unknown');
  private readonly code: PairingCode;
  private readonly writes = new SerialQueue();
  private loadError: string | null = null;
  /** Set synchronously by the winning claim, so concurrent correct claims see "paired". */
  private claimInFlight = false;
  private readonly listeners = new Set<Listener>();
  private readonly now: () => number;
  private readonly failureWindowMs: number;
  private readonly invites: InviteBook;

  constructor(private readonly options: PairingOptions) {
    this.now = options.now ?? Date.now;
    this.code = new PairingCode(this.now, options.codeTtlMs ?? CODE_TTL_MS);
    this.failureWindowMs = options.failureWindowMs ?? FAILURE_WINDOW_MS;
    this.invites = new InviteBook(this.now, options.inviteTtlMs ?? INVITE_TTL_MS);
  }

  async init(): Promise<void> {
    try {
      this.state = await loadPairingFile(this.options.file, randomUUID);
    } catch (err) {
      if (!(err instanceof PairingFileError)) throw err;
      // Never overwrite a file we cannot read: pairing stays closed until it is fixed by hand.
      this.loadError = err.message;
      this.options.logger.error(`error: pairing state unreadable, pairing disabled until fixed: ${err.message}`);
      return;
    }
    if (!this.isPaired()) await this.issueCode();
    else await this.persist();
    watchFile(this.options.file, { interval: 1000, persistent: false }, () => void this.onFileChanged());
  }

  /** `reset-pairing` run against a running service: adopt the reset instead of writing over it. */
  private async onFileChanged(): Promise<void> {
    if (!this.isPaired() || this.claimInFlight) return;
    const onDisk = await loadPairingFile(this.options.file, randomUUID).catch(() => undefined);
    if (onDisk && onDisk.devices.length === 0 && this.isPaired()) {
      await this.unpair('pairing reset (by the reset-pairing command)');
    }
  }

  get nodeId(): string {
    return this.state.node_id;
  }

  get error(): string | null {
    return this.loadError;
  }

  isPaired(): boolean {
    return this.state.devices.length > 0;
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private get bootstrapAvailable(): boolean {
    const secret = this.options.bootstrapSecret;
    return !!secret && !this.state.consumed_bootstrap_sha256.includes(sha256Hex(secret));
  }

  status(): PairingStatus {
    const bound = this.isPaired();
    return {
      bound,
      pairing_required: !bound,
      pairing_expires_at: bound ? null : this.state.code_expires_at,
      display_name: this.state.display_name,
      bootstrap_mode: this.bootstrapAvailable ? 'managed' : 'local',
      node_id: this.state.node_id,
    };
  }

  /** The id of the device `credential` belongs to, or undefined. */
  authenticate(credential: string | undefined): string | undefined {
    if (!credential || this.loadError) return undefined;
    const match = deviceByCredential(this.state.devices, credential);
    if (match) this.markSeen(match);
    return match?.id;
  }

  /** The role of a paired device; undefined once it is revoked. */
  roleOf(deviceId: string): DeviceRole | undefined {
    return this.state.devices.find((d) => d.id === deviceId)?.role;
  }

  /** True when `credential` belongs to a paired device. */
  verify(credential: string | undefined): boolean {
    return this.authenticate(credential) !== undefined;
  }

  devices(currentId: string | undefined): DeviceInfo[] {
    return deviceInfos(this.state.devices, currentId);
  }

  async claim(input: ClaimInput): Promise<PairedResponse> {
    if (this.loadError) throw new ApiError('config_invalid', `Pairing state cannot be read: ${this.loadError}`);
    if (this.isPaired() || this.claimInFlight) throw new ApiError('already_paired');
    const hasCode = input.pairing_code !== undefined;
    const hasSecret = input.bootstrap_secret !== undefined;
    if (!hasCode && !hasSecret) throw new ApiError('missing_credential_field');
    if (hasCode && hasSecret) {
      throw new ApiError('validation_failed', 'Send exactly one of pairing_code or bootstrap_secret.', { field: 'pairing_code' });
    }
    this.checkBudget();

    const ok = hasCode ? this.codeMatches(input.pairing_code as string) : this.secretMatches(input.bootstrap_secret as string);
    if (!ok) {
      await this.recordFailure(hasCode);
      throw new ApiError('invalid_pairing');
    }

    // Decided synchronously above: only one caller can pass this point.
    this.claimInFlight = true;
    // DESIGN 16: the device that claims the pairing code is the owner.
    const { device, credential } = createDevice(input.display_name ?? 'First device', this.now(), 'owner', null);
    const previous = this.state;
    this.state = {
      ...this.state,
      devices: [device],
      paired_at: device.paired_at,
      display_name: input.display_name ?? null,
      code_expires_at: null,
      code_failures: 0,
      recent_failures: [],
      consumed_bootstrap_sha256: hasSecret
        ? [...this.state.consumed_bootstrap_sha256, sha256Hex(input.bootstrap_secret as string)]
        : this.state.consumed_bootstrap_sha256,
    };
    try {
      await this.persist();
    } catch (err) {
      this.state = previous;
      throw err;
    } finally {
      this.claimInFlight = false;
    }
    this.code.clear();
    if (hasSecret) await this.options.onBootstrapConsumed?.().catch(() => undefined);
    this.options.logger.info(`paired with ${input.display_name ?? 'a client'}`);
    this.notify({ type: 'paired' });
    return { credential, node_id: this.state.node_id, device_id: device.id, role: device.role };
  }

  /** A one-time code another device redeems with `join`, as `role`. Only an owner can ask (route policy). */
  invite(name: string | undefined, role: DeviceRole, invitedBy: string): InviteResponse {
    const { code, expiresAtMs } = this.invites.create(name ?? null, role, invitedBy);
    this.options.logger.info(`device invite issued${name ? ` for ${name}` : ''} as ${role} (expires ${isoSeconds(expiresAtMs)})`);
    return { code, expires_at: isoSeconds(expiresAtMs), role };
  }

  async join(input: JoinRequest): Promise<PairedResponse> {
    if (this.loadError) throw new ApiError('config_invalid', `Pairing state cannot be read: ${this.loadError}`);
    this.checkBudget();
    const invite = this.isPaired() ? this.invites.redeem(input.invite_code) : undefined;
    if (!invite) {
      await this.recordFailure(false);
      throw new ApiError('invalid_invite');
    }
    const name = input.device_name ?? invite.name ?? `Device ${this.state.devices.length + 1}`;
    const { device, credential } = createDevice(name, this.now(), invite.role, invite.invitedBy);
    await this.change({ ...this.state, devices: [...this.state.devices, device] });
    this.options.logger.info(`device joined: ${device.name} (${device.role})`);
    return { credential, node_id: this.state.node_id, device_id: device.id, role: device.role };
  }

  /**
   * Revokes a device and every device it invited (transitively) at once; the last one gone means
   * unpaired (a new code is logged). Refused when members would be left without any owner.
   */
  async revokeDevice(id: string): Promise<DeviceInfo[]> {
    const gone = withInvitees(this.state.devices, id);
    if (gone.length === 0) throw new ApiError('not_found', `No device with id ${id}.`);
    const ids = gone.map((d) => d.id);
    const revoked = deviceInfos(gone, undefined);
    const names = gone.map((d) => d.name).join(', ');
    const devices = this.state.devices.filter((d) => !ids.includes(d.id));
    if (devices.length === 0) {
      await this.unpair(`device revoked: ${names}; no device left, pairing reset`);
      return revoked;
    }
    if (!devices.some((d) => d.role === 'owner')) {
      throw new ApiError(
        'conflict',
        `Revoking ${names} would leave only members: no device could manage this backend. Revoke the members too, or make another owner first.`,
      );
    }
    await this.change({ ...this.state, devices });
    this.invites.dropFrom(ids);
    this.options.logger.info(`device revoked: ${names}`);
    this.notify({ type: 'revoked', deviceIds: ids });
    return revoked;
  }

  /** Replaces one device's credential; its old one stops working at once. */
  async rotateCredential(deviceId: string): Promise<string> {
    const renewed = withNewCredential(this.state.devices, deviceId);
    if (!renewed) throw new ApiError('unauthorized');
    const { devices, credential } = renewed;
    await this.change({ ...this.state, devices });
    this.options.logger.info('credential rotated');
    this.notify({ type: 'revoked', deviceIds: [deviceId] });
    return credential;
  }

  /** Revokes every device and logs a new code. */
  reset(): Promise<void> {
    return this.unpair('pairing reset');
  }

  close(): void {
    unwatchFile(this.options.file);
    this.code.clear();
  }

  private markSeen(device: DeviceRecord): void {
    const now = this.now();
    if (device.last_seen_at && now - Date.parse(device.last_seen_at) < SEEN_RESOLUTION_MS) return;
    device.last_seen_at = new Date(now).toISOString();
    this.persist().catch((err: Error) => this.options.logger.error(`error: could not record when a device was last seen: ${err.message}`));
  }

  private async unpair(message: string): Promise<void> {
    const previous = this.state;
    this.state = { ...this.state, devices: [], paired_at: null, display_name: null };
    try {
      await this.issueCode();
    } catch (err) {
      this.state = previous;
      throw err;
    }
    this.invites.clear();
    this.options.logger.info(message);
    this.notify({ type: 'unpaired' });
  }

  /** Applies a new state once it is on disk; on a failed write nothing changes. */
  private async change(next: PairingFile): Promise<void> {
    const previous = this.state;
    this.state = next;
    try {
      await this.persist();
    } catch (err) {
      this.state = previous;
      throw err;
    }
  }

  private codeMatches(candidate: string): boolean {
    return this.code.matches(candidate);
  }

  private secretMatches(candidate: string): boolean {
    const secret = this.options.bootstrapSecret;
    if (!secret || !this.bootstrapAvailable) return false;
    return digestEquals(candidate, sha256Hex(secret));
  }

  private checkBudget(): void {
    this.state.recent_failures = pruneFailures(this.state.recent_failures, this.now(), this.failureWindowMs);
    throwIfThrottled(this.state.recent_failures, this.now(), this.failureWindowMs);
  }

  private async recordFailure(againstCode: boolean): Promise<void> {
    this.state.recent_failures = [...pruneFailures(this.state.recent_failures, this.now(), this.failureWindowMs), this.now()];
    if (againstCode) this.state.code_failures += 1;
    if (againstCode && this.state.code_failures >= FAILURES_PER_CODE) {
      await this.issueCode('rotated after repeated failures');
    } else {
      await this.persist();
    }
  }

  private async issueCode(reason?: string): Promise<void> {
    const { code, expiresAtMs } = this.code.issue(() => {
      if (this.isPaired()) return;
      this.issueCode('expired; new code issued').catch((err: Error) => {
        this.options.logger.error(`error: could not renew the pairing code: ${err.message}`);
      });
    });
    this.state.code_expires_at = isoSeconds(expiresAtMs);
    this.state.code_failures = 0;
    await this.persist();
    if (reason) this.options.logger.info(`pairing code ${reason}`);
    this.options.logger.info(`pairing code: ${code} (expires ${this.state.code_expires_at})`);
  }

  /** Writes run one at a time and each writes the state as it is when it runs, so the newest wins. */
  private persist(): Promise<void> {
    return this.writes.run('pairing', () => savePairingFile(this.options.file, this.state));
  }

  private notify(event: PairingEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
