import { mismatchMessage, probeCertificate } from './cert-pinning.js';
import type { PairOutcome, ProbeOutcome, Refusal, RemotesState, RemoteSummary } from './remote-api.js';
import { LOCAL, type RemoteBook } from './remote-book.js';
import { PairFailure, pairRemote } from './remote-pairing.js';
import { probeRemote } from './remote-probe.js';
import { parseRemoteUrl } from './remote-url.js';

/**
 * "Connect to another backend…" without Electron: probe (URL rules, fingerprint), pair (invite or
 * pairing code, over the compared certificate), switch, forget, and the start-up pin check. The
 * main process maps each method to an IPC channel and reloads the window after a switch.
 */
export class RemoteBackends {
  constructor(
    readonly book: RemoteBook,
    private readonly deviceName: string,
  ) {}

  async probe(url: string, allowInsecure = false): Promise<ProbeOutcome> {
    const parsed = parseRemoteUrl(url, { allowInsecure });
    if (!parsed.ok) return { ok: false, reason: parsed.reason, message: parsed.message };
    try {
      const probe = await probeRemote(parsed.origin);
      const known = this.book.list().find((r) => r.origin === parsed.origin) ?? null;
      return { ok: true, probe, warning: parsed.warning ?? null, known };
    } catch (err) {
      return { ok: false, reason: 'unreachable', message: (err as Error).message };
    }
  }

  /**
   * Pairs with the backend whose certificate the user compared (`fingerprint`, null for http), pins
   * it and stores the credential in the remote's slot; `use(origin)` then switches to it.
   */
  async pair(input: { origin: string; fingerprint: string | null; code: string; device_name?: string }): Promise<PairOutcome> {
    const parsed = parseRemoteUrl(input.origin, { allowInsecure: true });
    if (!parsed.ok) return { ok: false, reason: 'refused', message: parsed.message };
    if (parsed.secure !== (input.fingerprint !== null)) {
      return { ok: false, reason: 'refused', message: `${parsed.origin}: a fingerprint is needed for https and only for https` };
    }
    try {
      const paired = await pairRemote({
        origin: parsed.origin,
        fingerprint: input.fingerprint,
        code: input.code,
        deviceName: input.device_name ?? this.deviceName,
      });
      await this.book.add({
        origin: parsed.origin,
        fingerprint: input.fingerprint,
        node_id: paired.node_id,
        device_id: paired.device_id ?? null,
        display_name: paired.status.display_name,
        paired_at: new Date().toISOString(),
        credential: paired.credential,
      });
      return { ok: true, remote: this.book.list().find((r) => r.origin === parsed.origin)! };
    } catch (err) {
      if (!(err instanceof PairFailure)) throw err;
      return {
        ok: false,
        reason: err.reason,
        message: err.message,
        ...(err.retryAfter !== undefined ? { retry_after: err.retryAfter } : {}),
      };
    }
  }

  /**
   * The backend the window should use. A pinned remote is checked first (a TLS handshake, nothing
   * sent): a different certificate is refused here with the explanation, before the renderer sends
   * its credential anywhere.
   */
  async state(): Promise<RemotesState> {
    const remotes = this.book.list();
    const remote = remotes.find((r) => r.origin === this.book.active);
    if (!remote) return { active: { kind: 'local' }, remotes };
    if (!remote.fingerprint) return { active: { kind: 'remote', remote, check: 'ok' }, remotes };
    try {
      const { fingerprint } = await probeCertificate(remote.origin, 5_000);
      if (fingerprint === remote.fingerprint) return { active: { kind: 'remote', remote, check: 'ok' }, remotes };
      return { active: { kind: 'remote', remote, check: 'refused', refusal: this.refusal(remote, fingerprint) }, remotes };
    } catch (err) {
      return { active: { kind: 'remote', remote, check: 'unreachable', message: (err as Error).message }, remotes };
    }
  }

  refusal(remote: RemoteSummary, presented: string): Refusal {
    return {
      origin: remote.origin,
      pinned: remote.fingerprint ?? '',
      presented,
      pinned_at: remote.paired_at,
      message: mismatchMessage(remote.origin, remote.fingerprint ?? '', presented),
    };
  }

  /** The origin the renderer talks to (its CSP allows it): null for the local backend. */
  activeOrigin(): string | null {
    return this.book.active === LOCAL ? null : this.book.active;
  }

  async use(target: string): Promise<void> {
    await this.book.use(target);
  }

  /** Forgets pin and credential (re-pair starts from the probe again); the window goes back to local if it used it. */
  async forget(origin: string): Promise<boolean> {
    return this.book.forget(origin);
  }
}
