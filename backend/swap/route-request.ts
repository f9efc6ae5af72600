import { checksum } from './checksum.js';
import { z } from 'zod';
import { ApiError } from '../http/errors.js';
import { SOURCE_NAMES, type SourceName } from './swap-api.js';

/** The native coin's placeholder address (not the zero address), as the router expects it. */
export const NATIVE_TOKEN = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export const CHAINS = ['bsc', 'ethereum'] as const;
export type ChainName = (typeof CHAINS)[number];

export const DEFAULT_SLIPPAGE_BPS = 50;
export const MAX_SLIPPAGE_BPS = 5000;
export const DEFAULT_DEADLINE_SECONDS = 1200;
const TWO_256 = 1n << 256n;

const required = (field: string, type: string) => (iss: { input?: unknown }) =>
  iss.input === undefined ? `${field} is required` : `${field} must be ${type}`;

export function isNative(address: string): boolean {
  return address.toLowerCase() === NATIVE_TOKEN.toLowerCase();
}

/** 0x + 40 hex; mixed case must pass EIP-55. Normalized to the checksummed form. */
function address(field: string, opts: { wallet?: boolean } = {}) {
  return z
    .string({ error: required(field, 'a 0x-prefixed address string') })
    .superRefine((v, ctx) => {
      if (!/^0x[0-9a-fA-F]{40}$/.test(v)) {
        ctx.addIssue({ code: 'custom', message: `${field} must be 0x followed by 40 hex digits` });
        return;
      }
      const body = v.slice(2);
      const mixed = body !== body.toLowerCase() && body !== body.toUpperCase();
      if (mixed && checksum(v) !== v) {
        ctx.addIssue({ code: 'custom', message: `${field} has mixed case but fails the EIP-55 checksum` });
        return;
      }
      if (opts.wallet && (v.toLowerCase() === ZERO_ADDRESS || isNative(v))) {
        ctx.addIssue({
          code: 'custom',
          message: `${field} must be a wallet address, not the zero address or the native-token placeholder`,
        });
      }
    })
    .transform((v) => checksum(v));
}

/** A decimal string of a positive integer below 2^256: no sign, exponent, leading zeros or spaces. */
function weiString(field: string) {
  return z
    .string({ error: required(field, 'a decimal string of wei') })
    .superRefine((v, ctx) => {
      if (!/^[0-9]+$/.test(v)) {
        ctx.addIssue({
          code: 'custom',
          message: `${field} must be a decimal string of digits only (no sign, exponent, decimal point or spaces)`,
        });
      } else if (/^0/.test(v)) {
        ctx.addIssue({ code: 'custom', message: `${field} must be a positive integer without leading zeros` });
      } else if (BigInt(v) >= TWO_256) {
        ctx.addIssue({ code: 'custom', message: `${field} must be below 2^256` });
      }
    })
    .transform((v) => BigInt(v));
}

/** excludePools is for a few pools a wallet distrusts, not a filter language. */
export const MAX_EXCLUDED_POOLS = 20;

export const RouteRequestSchema = z
  .object(
    {
      chain: z.enum(CHAINS, {
        error: (iss) => (iss.input === undefined ? 'chain is required' : `chain must be one of: ${CHAINS.join(', ')}`),
      }),
      tokenIn: address('tokenIn'),
      tokenOut: address('tokenOut'),
      amountIn: weiString('amountIn'),
      sender: address('sender', { wallet: true }),
      recipient: address('recipient', { wallet: true }).optional(),
      slippageTolerance: z
        .number({ error: required('slippageTolerance', 'an integer number of basis points') })
        .int('slippageTolerance must be an integer number of basis points')
        .min(0, `slippageTolerance must be between 0 and ${MAX_SLIPPAGE_BPS} basis points`)
        .max(MAX_SLIPPAGE_BPS, `slippageTolerance must be between 0 and ${MAX_SLIPPAGE_BPS} basis points`)
        .default(DEFAULT_SLIPPAGE_BPS),
      deadline: z
        .number({ error: required('deadline', 'an integer Unix timestamp in seconds') })
        .int('deadline must be an integer Unix timestamp in seconds')
        .refine((d) => Number.isSafeInteger(d), 'deadline must be an integer Unix timestamp in seconds')
        .refine((d) => d > Math.floor(Date.now() / 1000), 'deadline must be in the future')
        .optional(),
      includedSources: z
        .array(
          z.enum(SOURCE_NAMES, {
            error: (iss) => `includedSources has an unknown source ${JSON.stringify(iss.input)}; allowed: ${SOURCE_NAMES.join(', ')}`,
          }),
          { error: required('includedSources', 'an array of source names') },
        )
        .min(1, `includedSources must not be empty; allowed: ${SOURCE_NAMES.join(', ')}`)
        .optional(),
      gasPrice: weiString('gasPrice').optional(),
      /** Refuse (400 price_impact_too_high) a route whose price impact is above this, in basis points. */
      maxPriceImpactBps: z
        .number({ error: required('maxPriceImpactBps', 'an integer number of basis points') })
        .int('maxPriceImpactBps must be an integer number of basis points')
        .min(0, 'maxPriceImpactBps must be between 0 and 10000 basis points')
        .max(10_000, 'maxPriceImpactBps must be between 0 and 10000 basis points')
        .optional(),
      /** Pools the route must not use: pool addresses or V4 PoolIds. */
      excludePools: z
        .array(
          z
            .string({ error: 'excludePools entries must be pool addresses or V4 PoolIds (strings)' })
            .regex(
              /^0x([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/,
              'excludePools entries must be 0x + 40 hex digits (a pool) or 0x + 64 (a V4 PoolId)',
            ),
          { error: required('excludePools', 'an array of pool addresses or V4 PoolIds') },
        )
        .max(MAX_EXCLUDED_POOLS, `excludePools may list at most ${MAX_EXCLUDED_POOLS} pools`)
        .optional(),
      /** false: answer with the gas model at once instead of simulating the calldata on the node. */
      simulateGas: z.boolean({ error: 'simulateGas must be true or false' }).optional(),
    },
    { error: 'the request body must be a JSON object' },
  )
  .superRefine((r, ctx) => {
    if (r.tokenIn.toLowerCase() === r.tokenOut.toLowerCase()) {
      ctx.addIssue({ code: 'custom', path: ['tokenOut'], message: 'tokenOut must differ from tokenIn' });
    }
  });

/** A validated request with every default applied (recipient, slippage, deadline, sources). */
export interface RouteRequest {
  chain: ChainName;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  sender: string;
  recipient: string;
  slippageTolerance: number;
  deadline: number;
  /** undefined: every configured source (spec 2.2: omitted means all supported). */
  includedSources?: SourceName[];
  gasPrice?: bigint;
  /** undefined: the chain's `gas_simulation` setting (default true). */
  simulateGas?: boolean;
  maxPriceImpactBps?: number;
  /** Lower-case pool addresses / PoolIds. */
  excludePools?: string[];
}

/** Validates the body; the first problem becomes a 400 `validation_failed` naming its field. */
export function parseRouteRequest(body: unknown, nowSeconds = Math.floor(Date.now() / 1000)): RouteRequest {
  const parsed = RouteRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.length > 0 ? String(issue.path[0]) : 'body';
    throw new ApiError('validation_failed', issue.message, { field });
  }
  const r = parsed.data;
  return {
    ...r,
    recipient: r.recipient ?? r.sender,
    deadline: r.deadline ?? nowSeconds + DEFAULT_DEADLINE_SECONDS,
    includedSources: r.includedSources ? [...new Set(r.includedSources)] : undefined,
    excludePools: r.excludePools ? [...new Set(r.excludePools.map((p) => p.toLowerCase()))] : undefined,
  };
}
