import { createPrivateKey, X509Certificate } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { readIfExists, writeFileAtomic } from '../data/atomic-write.js';
import { fingerprintOfPem, generateSelfSigned, namesFor, RENEW_BEFORE_MS, certificateNames } from './tls-certificate.js';

/** How the assistant listener speaks: plain HTTP, a certificate of its own, or the operator's. */
export type TlsSetting = { mode: 'off' } | { mode: 'auto' } | { mode: 'files'; certFile: string; keyFile: string };

export interface TlsMaterial {
  cert: string;
  key: string;
  /** `SHA256:AB:CD:…` of the leaf certificate. */
  fingerprint: string;
}

export class TlsSetupError extends Error {}

export function tlsPaths(selfhostDir: string) {
  const dir = path.join(selfhostDir, 'tls');
  return { dir, cert: path.join(dir, 'cert.pem'), key: path.join(dir, 'key.pem') };
}

/** Checks that `key` belongs to `cert` the way the TLS stack will use them. */
function checkPair(cert: string, key: string, where: string): void {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert);
  } catch (err) {
    throw new TlsSetupError(`${where}: the certificate is not a valid PEM certificate (${(err as Error).message})`);
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch (err) {
    throw new TlsSetupError(`${where}: the key is not a valid PEM private key (${(err as Error).message})`);
  }
  if (!leaf.checkPrivateKey(privateKey)) throw new TlsSetupError(`${where}: the private key does not belong to the certificate`);
  tls.createSecureContext({ cert, key });
}

/** `-tls-cert FILE -tls-key FILE`: the operator's certificate (chain) and key, used as they are. */
async function operatorMaterial(certFile: string, keyFile: string): Promise<TlsMaterial> {
  const read = async (file: string, flag: string) => {
    try {
      return await fs.readFile(file, 'utf8');
    } catch (err) {
      throw new TlsSetupError(`${flag} ${file}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  };
  const cert = await read(certFile, '-tls-cert');
  const key = await read(keyFile, '-tls-key');
  checkPair(cert, key, `-tls-cert ${certFile} / -tls-key ${keyFile}`);
  return { cert, key, fingerprint: fingerprintOfPem(cert) };
}

/**
 * `-tls auto`: the certificate in `selfhost/tls/`, generated on first use and kept across restarts
 * (clients pin its fingerprint). A pair that cannot be read is never overwritten: the user decides.
 */
async function selfSignedMaterial(selfhostDir: string, host: string, log: (line: string) => void): Promise<TlsMaterial> {
  const files = tlsPaths(selfhostDir);
  await fs.mkdir(files.dir, { recursive: true, mode: 0o700 });
  const [cert, key] = await Promise.all([readIfExists(files.cert), readIfExists(files.key)]);
  const wanted = namesFor(host, os.hostname());
  if (cert !== undefined && key !== undefined) {
    checkPair(cert, key, `${files.dir} (delete the folder to generate a new certificate)`);
    const stat = await fs.stat(files.key);
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
      await fs.chmod(files.key, 0o600);
      log(`warning: ${files.key} had a lax mode; set to 0600`);
    }
    const expiresAt = Date.parse(new X509Certificate(cert).validTo);
    if (expiresAt - Date.now() > RENEW_BEFORE_MS) {
      const missing = wanted.filter((n) => !certificateNames(cert).includes(n));
      if (missing.length > 0) {
        // Regenerating would change the fingerprint every device pinned; names only matter to browsers.
        log(`warning: the TLS certificate does not name ${missing.join(', ')}; delete ${files.dir} to generate one that does`);
      }
      return { cert, key, fingerprint: fingerprintOfPem(cert) };
    }
    log(`warning: the TLS certificate expires ${new Date(expiresAt).toISOString()}; generating a new one (its fingerprint changes)`);
  }
  const fresh = await generateSelfSigned(wanted);
  // Key first: a crash in between leaves a key without a certificate, which is replaced next start.
  await writeFileAtomic(files.key, fresh.key, { mode: 0o600 });
  await writeFileAtomic(files.cert, fresh.cert, { mode: 0o644 });
  log(`generated a self-signed TLS certificate in ${files.dir} for ${wanted.join(', ')}`);
  return { ...fresh, fingerprint: fingerprintOfPem(fresh.cert) };
}

/** Resolves the `-tls` flags to a certificate and key, or undefined for plain HTTP. */
export async function loadTlsMaterial(
  setting: TlsSetting,
  options: { selfhostDir: string; host: string; log: (line: string) => void },
): Promise<TlsMaterial | undefined> {
  switch (setting.mode) {
    case 'off':
      return undefined;
    case 'auto':
      return selfSignedMaterial(options.selfhostDir, options.host, options.log);
    case 'files':
      return operatorMaterial(setting.certFile, setting.keyFile);
  }
}
