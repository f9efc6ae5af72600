import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import https from 'node:https';
import tls from 'node:tls';
import { fingerprintOfDer } from '../../backend/selfhost/tls-certificate.js';

x509.cryptoProvider.set(webcrypto as never);
const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface Issued {
  cert: string;
  key: string;
  keys: webcrypto.CryptoKeyPair;
  name: string;
}

async function pemKey(keys: webcrypto.CryptoKeyPair): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
}

/** A CA for the tests' mTLS and operator certificates. */
export async function makeCa(name = 'CN=test ca'): Promise<Issued> {
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name,
    keys,
    signingAlgorithm: EC,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true),
    ],
  });
  return { cert: cert.toString('pem'), key: await pemKey(keys), keys, name };
}

/** A leaf signed by `ca`: a server certificate (with names) or a client certificate. */
export async function issue(ca: Issued, kind: 'server' | 'client', names: string[] = []): Promise<Issued> {
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const name = `CN=test ${kind}`;
  const cert = await x509.X509CertificateGenerator.create({
    subject: name,
    issuer: ca.name,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: EC,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
    extensions: [
      new x509.ExtendedKeyUsageExtension([kind === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
      ...(names.length
        ? [
            new x509.SubjectAlternativeNameExtension(
              names.map((value) => ({ type: /^[\d.]+$/.test(value) ? ('ip' as const) : ('dns' as const), value })),
            ),
          ]
        : []),
    ],
  });
  return { cert: cert.toString('pem'), key: await pemKey(keys), keys, name };
}

/** The fingerprint of the certificate a TLS server actually presents on `port`. */
export function servedFingerprint(port: number, options: tls.ConnectionOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false, ...options }, () => {
      const der = socket.getPeerCertificate().raw;
      socket.end();
      resolve(fingerprintOfDer(der));
    });
    socket.on('error', reject);
  });
}

export interface TlsReply {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/** A JSON request over HTTPS with explicit trust (`ca`) and optional client certificate. */
export function httpsJson(
  url: string,
  method: string,
  pathname: string,
  options: { body?: unknown; credential?: string; ca?: string; cert?: string; key?: string; agent?: https.Agent } = {},
): Promise<TlsReply> {
  const target = new URL(pathname, url);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      target,
      {
        method,
        ca: options.ca,
        cert: options.cert,
        key: options.key,
        agent: options.agent ?? false,
        headers: {
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...(options.credential ? { authorization: `Bearer ${options.credential}` } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
