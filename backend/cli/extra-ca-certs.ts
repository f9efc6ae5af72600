import { readFileSync } from 'node:fs';
import tls from 'node:tls';

/**
 * `-ca-certs FILE`: extra CA certificates for outgoing HTTPS (providers, tool servers, RPC), for
 * users behind a TLS-inspecting proxy. Plain Node also honours NODE_EXTRA_CA_CERTS, but inside the
 * desktop app Electron's NODE_OPTIONS fuse (off) makes it ignore that variable, so the app passes
 * this flag instead.
 */
const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+?-----END CERTIFICATE-----/g;

export function readCaCertificates(file: string, flag = '-ca-certs'): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${flag} ${file}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, {
      cause: err,
    });
  }
  const pems = text.match(PEM_BLOCK) ?? [];
  if (pems.length === 0) throw new Error(`${flag} ${file}: no PEM certificate ("-----BEGIN CERTIFICATE-----") in the file`);
  for (const pem of pems) {
    try {
      tls.createSecureContext({ ca: pem });
    } catch (err) {
      throw new Error(`${flag} ${file}: not a valid certificate (${(err as Error).message})`, { cause: err });
    }
  }
  return pems;
}

/**
 * Trusts `pems` in addition to the default roots for every TLS connection made without an explicit
 * `ca` (fetch/undici, https, tls) with tls.setDefaultCACertificates (Node 22.19+, and Electron 45's
 * Node 24.21). The floor is Node 22.0, so 22.0-22.18 get the same effect by adding the certificates
 * to each secure context Node creates.
 */
export function trustExtraCaCertificates(pems: string[]): 'setDefaultCACertificates' | 'secure-context' {
  // typeof: the typings describe the newest 22.x, the floor is 22.0.
  if (typeof tls.setDefaultCACertificates === 'function') {
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), ...pems]);
    return 'setDefaultCACertificates';
  }
  const original = tls.createSecureContext;
  const patched: typeof tls.createSecureContext = (options) => {
    const context = original(options);
    if (!options?.ca) {
      const native = (context as unknown as { context: { addCACert(pem: string): void } }).context;
      for (const pem of pems) native.addCACert(pem);
    }
    return context;
  };
  (tls as { createSecureContext: typeof tls.createSecureContext }).createSecureContext = patched;
  return 'secure-context';
}
