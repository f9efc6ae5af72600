// The one way the web tools reach a page (DESIGN 14): http(s) only, the host resolved once and every
// address checked, the socket pinned to the checked address (the request's `lookup` returns only
// it, so a rebinding DNS answer between check and connect changes nothing), redirects followed by
// hand and checked again, a byte cap and one deadline over all hops.
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import { forbiddenReason } from './address-guard.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface FetchLimits {
  /** `host:port` entries admitted even when they resolve to a private address (a LAN wiki; tests). */
  allowHosts: string[];
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  /** DNS resolution; tests inject one to play a name that resolves to a forbidden address. */
  resolve?: Resolver;
  userAgent?: string;
}

export const DEFAULT_LIMITS = { maxBytes: 10 * 1024 * 1024, timeoutMs: 20_000, maxRedirects: 5 };

export interface FetchedPage {
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
}

/** A refusal or failure of a fetch, worded for the model and the user. */
export class WebError extends Error {
  constructor(
    readonly code: 'forbidden_address' | 'bad_url' | 'too_large' | 'timeout' | 'http_error' | 'unreachable' | 'unsupported_type',
    message: string,
  ) {
    super(message);
  }
}

const systemResolve: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

function defaultPort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** Parses and checks the scheme; the WHATWG parser already turns 127.1, 2130706433 and 0x7f000001 into 127.0.0.1. */
export function parseWebUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebError('bad_url', `"${raw.slice(0, 200)}" is not a valid URL; give a full http:// or https:// address.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new WebError('bad_url', `The scheme ${url.protocol} is refused: web_fetch reads http:// and https:// addresses only.`);
  if (url.username || url.password) throw new WebError('bad_url', 'Addresses with a user name or password are refused.');
  return url;
}

/** The address to connect to, checked; throws a WebError naming the rule when the host is refused. */
export async function checkedAddress(url: URL, limits: Pick<FetchLimits, 'allowHosts' | 'resolve'>): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const allowed = limits.allowHosts.some((h) => h.toLowerCase() === `${url.hostname.toLowerCase()}:${defaultPort(url)}`);
  let addresses: ResolvedAddress[];
  const family = isIP(host);
  if (family) addresses = [{ address: host, family: family === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await (limits.resolve ?? systemResolve)(host);
    } catch (err) {
      throw new WebError('unreachable', `The host ${host} could not be resolved (${(err as NodeJS.ErrnoException).code ?? 'DNS error'}).`);
    }
    if (addresses.length === 0) throw new WebError('unreachable', `The host ${host} has no address.`);
  }
  if (!allowed) {
    // Every address: a name with one public and one private answer is refused as a whole.
    for (const a of addresses) {
      const why = forbiddenReason(a.address);
      if (why) {
        const shown = family ? host : `${host} (${a.address})`;
        throw new WebError(
          'forbidden_address',
          `The address ${shown} is refused: it is ${why}. web_fetch reads public web pages only (web_fetch.allow_hosts admits named private hosts).`,
        );
      }
    }
  }
  return addresses[0] as ResolvedAddress;
}

function pinned(target: ResolvedAddress): LookupFunction {
  return ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (options?.all) cb(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  }) as LookupFunction;
}

/** GET `raw`, following at most `maxRedirects` redirects, each hop checked. */
export async function safeFetch(raw: string, limits: FetchLimits, signal?: AbortSignal): Promise<FetchedPage> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
  let url = parseWebUrl(raw);
  for (let hop = 0; ; hop++) {
    const target = await checkedAddress(url, limits);
    let response: http.IncomingMessage;
    try {
      response = await request(url, target, limits, combined);
    } catch (err) {
      throw failure(err, deadline, limits, url);
    }
    const location = response.headers.location;
    if (response.statusCode && response.statusCode >= 300 && response.statusCode < 400 && location) {
      response.resume();
      if (hop >= limits.maxRedirects) throw new WebError('http_error', `More than ${limits.maxRedirects} redirects (last: ${url.href}).`);
      url = parseWebUrl(new URL(location, url).href);
      continue;
    }
    try {
      const body = await readCapped(response, limits.maxBytes);
      const status = response.statusCode ?? 0;
      if (status >= 400) throw new WebError('http_error', `The server answered HTTP ${status} for ${url.href}.`);
      return { url: url.href, status, contentType: String(response.headers['content-type'] ?? ''), body };
    } catch (err) {
      throw failure(err, deadline, limits, url);
    }
  }
}

function failure(err: unknown, deadline: AbortSignal, limits: FetchLimits, url: URL): Error {
  if (err instanceof WebError) return err;
  if (deadline.aborted) return new WebError('timeout', `The page ${url.href} took longer than ${limits.timeoutMs / 1000} s.`);
  const code = (err as NodeJS.ErrnoException)?.code;
  if ((err as Error)?.name === 'AbortError') return err as Error;
  return new WebError('unreachable', `The page ${url.href} could not be fetched (${code ?? (err as Error)?.message ?? 'error'}).`);
}

function request(url: URL, target: ResolvedAddress, limits: FetchLimits, signal: AbortSignal): Promise<http.IncomingMessage> {
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(url, {
      method: 'GET',
      lookup: pinned(target),
      // A literal IP host skips `lookup`: connect to the checked literal itself.
      ...(isIP(url.hostname.replace(/^\[|\]$/g, '')) ? { host: target.address } : {}),
      signal,
      agent: false,
      headers: {
        'user-agent': limits.userAgent ?? 'Mozilla/5.0 (compatible; service-desktop web reader)',
        accept: 'text/html,application/xhtml+xml,application/pdf,text/plain;q=0.9,*/*;q=0.5',
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
}

/** The body, decompressed, refused past `max` bytes (counted after decompression: no zip bombs). */
async function readCapped(response: http.IncomingMessage, max: number): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase();
  const tooLarge = () =>
    new WebError('too_large', `The page is larger than ${Math.round(max / 1024 / 1024)} MiB; web_fetch reads at most that.`);
  if (!encoding && Number.isFinite(declared) && declared > max) {
    response.destroy();
    throw tooLarge();
  }
  let stream: Readable = response;
  if (encoding === 'gzip' || encoding === 'x-gzip') stream = response.pipe(zlib.createGunzip());
  else if (encoding === 'deflate') stream = response.pipe(zlib.createInflate());
  else if (encoding === 'br') stream = response.pipe(zlib.createBrotliDecompress());
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > max) {
      response.destroy();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
