import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Entry {
  pool: string;
  tokenIn: string;
  tokenOut: string;
  swapAmount: string;
  amountOut: string;
  exchange: string;
  poolType?: string;
  extra?: unknown;
}

export interface SeenRequest {
  url: URL;
  headers: http.IncomingHttpHeaders;
}

export type Reply = (url: URL, res: http.ServerResponse) => void;

/** A local stand-in for the aggregator's `GET /{chain}/api/v1/routes`, on 127.0.0.1. */
export class FakeAggregator {
  readonly seen: SeenRequest[] = [];
  reply: Reply = (_url, res) => json(res, 500, { code: 500, message: 'no reply set' });
  private server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    this.seen.push({ url, headers: req.headers });
    this.reply(url, res);
  });
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** The aggregator's answer shape: `{code, message, data: {routeSummary, routerAddress}, requestId}`. */
export function answer(tokenIn: string, tokenOut: string, amountIn: bigint, route: Entry[][], over: Record<string, unknown> = {}) {
  const amountOut = route.reduce((a, p) => a + BigInt(p[p.length - 1].amountOut), 0n);
  return {
    code: 0,
    message: 'successfully',
    data: {
      routeSummary: {
        tokenIn: tokenIn.toLowerCase(),
        amountIn: amountIn.toString(),
        amountInUsd: '1000.5',
        tokenOut: tokenOut.toLowerCase(),
        amountOut: amountOut.toString(),
        amountOutUsd: '999.25',
        gas: '250000',
        gasPrice: '1000000000',
        gasUsd: '0.15',
        extraFee: { feeAmount: '0', chargeFeeBy: '', isInBps: false, feeReceiver: '' },
        route,
        ...over,
      },
      routerAddress: '0x6131B5fae19EA4f9D964eAc0408E4408b66337b5',
    },
    requestId: 'test-request',
  };
}
