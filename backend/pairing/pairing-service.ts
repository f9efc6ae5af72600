import { randomUUID } from 'node:crypto';
import { unwatchFile, watchFile } from 'node:fs';
import { ApiError } from '../http/errors.js';
import type { Logger } from '../log/logger.js';
import type { ClaimInput, PairingStatus } from './pairing-api.js';
import { digestEquals, newCredential, newPairingCode, sha256Hex } from './secrets.js';
import { SerialQueue } from '../data/serial-queue.js';
import { loadPairingFile, PairingFileError, savePairingFile, type PairingFile } from './pairing-store.js';

export const CODE_TTL_MS = 24 * 60 * 60 * 1000;
export const FAILURE_WINDOW_MS = 10 * 60 * 1000;
export const FAILURE_BUDGET = 10;
export const FAILURES_PER_CODE = 5;

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
}

type Listener = (event: 'paired' | 'unpaired' | 'rotated') => void;

/**
 * The pairing state machine (spec section 3): unpaired ⇄ paired, with a 6-digit code that is
 * logged while unpaired, renewed on expiry, rotated after repeated failures, and a global
 * failure budget that throttles brute force regardless of the caller's address.
 */
export class PairingService {
  private state!: PairingFile;
  private code: string | null = null;
  private codeExpiresAtMs = 0;
  private readonly writes = new SerialQueue();
  private loadError: string | null = null;
  /** Set synchronously by the winning claim, so concurrent correct claims see "paired". */
  private claimInFlight = false;
  private expiryTimer: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<Listener>();
  private readonly now: () => number;
  private readonly codeTtlMs: number;
  private readonly failureWindowMs: number;

  constructor(private readonly options: PairingOptions) {
    this.now = options.now ?? Date.now;
    this.codeTtlMs = options.codeTtlMs ?? CODE_TTL_MS;
    this.failureWindowMs = options.failureWindowMs ?? FAILURE_WINDOW_MS;
  }

  async init(): Promise<void> {
    try {
      this.state = await loadPairingFile(this.options.file, randomUUID);
    } catch (err) {
      if (!(err instanceof PairingFileError)) throw err;
      // Never overwrite a file we cannot read: pairing stays closed until it is fixed by hand.
      this.loadError = err.message;
      this.options.logger.error(`error: pairing state unreadable, pairing disabled until fixed: ${err.message}`);
      this.state = {
        node_id: 'unknown',
        credential_sha256: null,
        paired_at: null,
        display_name: null,
        code_expires_at: null,
        code_failures: 0,
        recent_failures: [],
        consumed_bootstrap_sha256: [],
      };
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
    if (onDisk && onDisk.credential_sha256 === null && this.isPaired()) {
      this.state = { ...this.state, credential_sha256: null, paired_at: null, display_name: null };
      await this.issueCode();
      this.options.logger.info('pairing reset (by the reset-pairing command)');
      this.notify('unpaired');
    }
  }

  get nodeId(): string {
    return this.state.node_id;
  }

  get error(): string | null {
    return this.loadError;
  }

  isPaired(): boolean {
    return this.state.credential_sha256 !== null;
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

  /** True when `credential` is the current one; constant time over digests. */
  verify(credential: string | undefined): boolean {
    const expected = this.state.credential_sha256;
    if (!credential || !expected || this.loadError) return false;
    return digestEquals(credential, expected);
  }

  async claim(input: ClaimInput): Promise<{ credential: string; node_id: string }> {
    if (this.loadError) throw new ApiError('config_invalid', `Pairing state cannot be read: ${this.loadError}`);
    if (this.isPaired() || this.claimInFlight) throw new ApiError('already_paired');
    const hasCode = input.pairing_code !== undefined;
    const hasSecret = input.bootstrap_secret !== undefined;
    if (!hasCode && !hasSecret) throw new ApiError('missing_credential_field');
    if (hasCode && hasSecret) {
      throw new ApiError('validation_failed', 'Send exactly one of pairing_code or bootstrap_secret.', { field: 'pairing_code' });
    }
    this.throwIfThrottled();

    const ok = hasCode ? this.codeMatches(input.pairing_code as string) : this.secretMatches(input.bootstrap_secret as string);
    if (!ok) {
      await this.recordFailure(hasCode);
      throw new ApiError('invalid_pairing');
    }

    // Decided synchronously above: only one caller can pass this point.
    this.claimInFlight = true;
    const credential = newCredential();
    const previous = { ...this.state };
    this.state = {
      ...this.state,
      credential_sha256: sha256Hex(credential),
      paired_at: new Date(this.now()).toISOString(),
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
    this.code = null;
    this.clearExpiryTimer();
    if (hasSecret) await this.options.onBootstrapConsumed?.().catch(() => undefined);
    this.options.logger.info(`paired with ${input.display_name ?? 'a client'}`);
    this.notify('paired');
    return { credential, node_id: this.state.node_id };
  }

  /** Replaces the credential; the old one stops working at once. */
  async rotateCredential(): Promise<string> {
    const credential = newCredential();
    const previous = this.state.credential_sha256;
    this.state.credential_sha256 = sha256Hex(credential);
    try {
      await this.persist();
    } catch (err) {
      this.state.credential_sha256 = previous;
      throw err;
    }
    this.options.logger.info('credential rotated');
    this.notify('rotated');
    return credential;
  }

  /** Forgets the credential and logs a new code. */
  async reset(): Promise<void> {
    const previous = { ...this.state };
    this.state = { ...this.state, credential_sha256: null, paired_at: null, display_name: null };
    try {
      await this.issueCode();
    } catch (err) {
      this.state = previous;
      throw err;
    }
    this.options.logger.info('pairing reset');
    this.notify('unpaired');
  }

  close(): void {
    unwatchFile(this.options.file);
    this.clearExpiryTimer();
  }

  private codeMatches(candidate: string): boolean {
    if (this.code === null || this.codeExpiresAtMs <= this.now()) return false;
    return digestEquals(candidate, sha256Hex(this.code));
  }

  private secretMatches(candidate: string): boolean {
    const secret = this.options.bootstrapSecret;
    if (!secret || !this.bootstrapAvailable) return false;
    return digestEquals(candidate, sha256Hex(secret));
  }

  private pruneFailures(): number[] {
    const cutoff = this.now() - this.failureWindowMs;
    this.state.recent_failures = this.state.recent_failures.filter((t) => t > cutoff);
    return this.state.recent_failures;
  }

  private throwIfThrottled(): void {
    const failures = this.pruneFailures();
    if (failures.length < FAILURE_BUDGET) return;
    const oldestInBudget = failures[failures.length - FAILURE_BUDGET];
    const waitMs = oldestInBudget + this.failureWindowMs - this.now();
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
    throw new ApiError('too_many_requests', `Too many failed attempts; try again in ${retryAfter} s.`, {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }

  private async recordFailure(againstCode: boolean): Promise<void> {
    this.pruneFailures();
    this.state.recent_failures.push(this.now());
    if (againstCode) this.state.code_failures += 1;
    if (againstCode && this.state.code_failures >= FAILURES_PER_CODE) {
      await this.issueCode('rotated after repeated failures');
    } else {
      await this.persist();
    }
  }

  private async issueCode(reason?: string): Promise<void> {
    this.code = newPairingCode();
    this.codeExpiresAtMs = this.now() + this.codeTtlMs;
    this.state.code_expires_at = new Date(this.codeExpiresAtMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
    this.state.code_failures = 0;
    await this.persist();
    if (reason) this.options.logger.info(`pairing code ${reason}`);
    this.options.logger.info(`pairing code: ${this.code} (expires ${this.state.code_expires_at})`);
    this.scheduleRenewal(this.codeExpiresAtMs);
  }

  private scheduleRenewal(at: number): void {
    this.clearExpiryTimer();
    // setTimeout holds at most ~24.8 days; the code lives 24 h.
    this.expiryTimer = setTimeout(
      () => {
        if (this.isPaired()) return;
        this.issueCode('expired; new code issued').catch((err: Error) => {
          this.options.logger.error(`error: could not renew the pairing code: ${err.message}`);
        });
      },
      Math.max(0, at - this.now()),
    );
    this.expiryTimer.unref();
  }

  private clearExpiryTimer(): void {
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimer = undefined;
  }

  /** Writes run one at a time and each writes the state as it is when it runs, so the newest wins. */
  private persist(): Promise<void> {
    return this.writes.run('pairing', () => savePairingFile(this.options.file, this.state));
  }

  private notify(event: 'paired' | 'unpaired' | 'rotated'): void {
    for (const listener of this.listeners) listener(event);
  }
}
