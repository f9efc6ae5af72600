import { createHash, webcrypto, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';

/** A certificate and its private key, both PEM. */
export interface CertificatePair {
  cert: string;
  key: string;
}

const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
/** Long enough that a pinned fingerprint rarely changes; renewed a month before it runs out. */
export const SELF_SIGNED_DAYS = 825;
export const RENEW_BEFORE_MS = 30 * 24 * 3600_000;

/**
 * `SHA256:AB:CD:…`: the SHA-256 of the certificate's DER, in the colon-separated upper-case hex
 * that browsers' certificate viewers show, so a user can compare it by eye.
 */
export function fingerprintOfDer(der: Uint8Array): string {
  const hex = createHash('sha256').update(der).digest('hex').toUpperCase();
  return `SHA256:${hex.match(/../g)!.join(':')}`;
}

export function fingerprintOfPem(pem: string): string {
  return fingerprintOfDer(new X509Certificate(pem).raw);
}

/** The DNS names and IP addresses a certificate covers (from its subjectAltName). */
export function certificateNames(pem: string): string[] {
  const san = new X509Certificate(pem).subjectAltName ?? '';
  return san
    .split(/,\s*/)
    .map((entry) => entry.replace(/^(DNS|IP Address):/, '').toLowerCase())
    .filter(Boolean);
}

/** The names a self-signed certificate for `host` carries: localhost, the host name, the bind address. */
export function namesFor(host: string, hostname: string): string[] {
  const names = ['localhost', '127.0.0.1', '::1', hostname.toLowerCase()];
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  // A wildcard bind is no name anyone connects to.
  if (bare !== '0.0.0.0' && bare !== '::') names.push(bare);
  return [...new Set(names.filter(Boolean))];
}

/**
 * A fresh self-signed ECDSA P-256 certificate. The X.509 encoding comes from @peculiar/x509 (loaded
 * only here: most starts reuse the certificate on disk); keys and signatures from Node's webcrypto.
 */
export async function generateSelfSigned(names: string[], now = new Date()): Promise<CertificatePair> {
  await import('reflect-metadata'); // the library's dependency injection needs the Reflect polyfill
  const x509 = await import('@peculiar/x509');
  // Node's webcrypto is the DOM `Crypto` the library types against (no DOM lib in the backend build).
  x509.cryptoProvider.set(webcrypto as never);
  const keys = (await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const altNames = names.map((value) => ({ type: isIP(value) ? ('ip' as const) : ('dns' as const), value }));
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
      .toString('hex')
      .replace(/^[89a-f]/, '1'),
    name: 'CN=service self-signed',
    notBefore: new Date(now.getTime() - 60_000), // tolerate a client clock a little behind
    notAfter: new Date(now.getTime() + SELF_SIGNED_DAYS * 24 * 3600_000),
    signingAlgorithm: EC_P256,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(altNames),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: cert.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}
