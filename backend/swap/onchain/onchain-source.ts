import { checksum } from '../checksum.js';
import { ApiError } from '../../http/errors.js';
import type { LiquiditySource, SourceRequest } from '../liquidity-source.js';
import type { FoundRoute, Hop, RoutePath } from '../route-model.js';
import { isNative, type ChainName } from '../route-request.js';
import { requireSetting, type ChainSettings } from '../swap-settings.js';
import { gasModelFrom, routeGas, type GasModel } from './gas-model.js';
import { JsonRpcClient, RpcError } from './json-rpc.js';
import { ChainFollower } from './chain-follower.js';
import { MulticallClient } from './multicall.js';
import { buildCandidates, MissingTickData, pairKey, pathOutput, quotePath, tokenSequences, type CandidatePath } from './path-candidates.js';
import { discoverPools, discoveryQueries, type DiscoveryCache } from './pool-discovery.js';
import { PoolLookup } from './pool-lookup.js';
import { PoolReader, type BlockRef, type PoolRef, type PoolState } from './pool-reader.js';
import type { V3PoolState } from './v3-quote.js';
import { priceImpactBps } from './price-impact.js';
import { optimizeSplit } from './split-optimizer.js';
import { usdPricer } from './usd-prices.js';
import { simulationHeadroom } from './simulation-headroom.js';
import { tokenSlots } from './storage-slots.js';
import { refuseTransferFees, TransferFees } from './transfer-fee.js';
import { V4Pools } from './v4-pools.js';

export const CHAIN_IDS: Record<ChainName, number> = { bsc: 56, ethereum: 1 };
const MAX_TICK_RELOADS = 12;
const EXTRA_WORDS = 16;
/** V4 words come in one extsload per PoolManager; a V3 word is one Multicall3 sub-call. */
const EXTRA_WORDS_WIDE = 64;
/** Head polling without ws_url: about one BNB Chain block (0.45 s). */
const DEFAULT_POLL_MS = 400;
/** With a live subscription, a pushed head is used for this long (a quiet chain has no new heads). */
const SUBSCRIBED_STALE_MS = 60_000;
/** Following a chain stops this long after the last request. */
const FOLLOW_IDLE_MS = 120_000;

interface NodeContext {
  rpc: JsonRpcClient;
  reader: PoolReader;
  lookup: PoolLookup;
  follower: ChainFollower;
  discovered: DiscoveryCache;
  fees: TransferFees;
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/**
 * The embedded liquidity source (`liquidity: onchain`): discovers pools through each enabled
 * source's factory for the direct pair and via the connectors, reads their state at one block,
 * quotes with exact pool math and splits over paths to maximise output net of gas.
 */
export class OnchainSource implements LiquiditySource {
  readonly name = 'onchain' as const;
  private readonly nodes = new Map<string, NodeContext>();
  private readonly v4: V4Pools;

  /** `log` receives one line per V4 pool that is skipped (hooks, dynamic fee), once. */
  /** `dataDir`: where the V4 pool index is kept between runs. */
  constructor(
    private readonly log: (line: string) => void = () => {},
    dataDir?: string,
  ) {
    this.v4 = new V4Pools(log, dataDir);
  }

  private node(settings: ChainSettings, url: string, chain: ChainName): NodeContext {
    const o = settings.rpc ?? {};
    const key = `${url}|${settings.ws_url ?? ''}|${o.max_batch}|${o.max_in_flight}|${o.timeout_ms}|${o.poll_ms}`;
    let ctx = this.nodes.get(key);
    if (!ctx) {
      const rpc = new JsonRpcClient(url, { maxBatch: o.max_batch, maxInFlight: o.max_in_flight, timeoutMs: o.timeout_ms });
      const multicall = new MulticallClient(rpc);
      const reader = new PoolReader(multicall);
      const lookup = new PoolLookup(multicall);
      const follower = new ChainFollower(reader, {
        wsUrl: settings.ws_url,
        pollMs: o.poll_ms ?? DEFAULT_POLL_MS,
        idleMs: FOLLOW_IDLE_MS,
        staleMs: SUBSCRIBED_STALE_MS,
        chainId: CHAIN_IDS[chain],
        chainName: chain,
        log: this.log,
        watch: (tag) => lookup.watchRound(tag),
        onHead: (head) => this.v4.syncKnown(rpc, { number: Number(BigInt(head.block.tag)), hash: head.block.hash }),
      });
      ctx = { rpc, reader, lookup, follower, discovered: new Map(), fees: new TransferFees(rpc) };
      this.nodes.set(key, ctx);
    }
    return ctx;
  }

  /** Stops following every node's chain (tests, shutdown). */
  close(): void {
    for (const ctx of this.nodes.values()) ctx.follower.stop();
  }

  async findRoute(req: SourceRequest, settings: ChainSettings, signal: AbortSignal): Promise<FoundRoute> {
    try {
      return await this.find(req, settings, signal);
    } catch (err) {
      if (err instanceof RpcError) throw new ApiError('upstream_error', `on-chain liquidity source: ${err.message}`);
      throw err;
    }
  }

  private async find(req: SourceRequest, settings: ChainSettings, signal: AbortSignal): Promise<FoundRoute> {
    const url = requireSetting(settings, 'rpc_url');
    const wrapped = requireSetting(settings, 'wrapped_native').toLowerCase();
    const ctx = this.node(settings, url, req.chain);
    const tokenIn = isNative(req.tokenIn) ? wrapped : req.tokenIn.toLowerCase();
    const tokenOut = isNative(req.tokenOut) ? wrapped : req.tokenOut.toLowerCase();
    if (tokenIn === tokenOut)
      throw new ApiError('no_route', 'Swapping the native coin for its wrapped token (or back) is a wrap, not a route.');
    const usdTokens = (settings.usd_tokens ?? []).map((t) => t.toLowerCase());
    const sequences = tokenSequences(tokenIn, tokenOut, settings.connectors ?? []);
    const input = {
      chain: req.chain,
      sources: req.sources,
      sequences,
      tokenIn,
      tokenOut,
      wrapped,
      usdTokens,
      excludePools: req.excludePools,
    };
    // Connectors, USD tokens and the wrapped native token are trusted not to take a transfer fee.
    const trusted = new Set([wrapped, ...usdTokens, ...(settings.connectors ?? []).map((t) => t.toLowerCase())]);
    const measured = [tokenIn, tokenOut].filter((t) => !trusted.has(t));
    // Off the request's round trips: the storage slots the fee check and the gas simulation need,
    // and the decimals the USD figures need, are asked beside the head.
    // Their failures surface where they are awaited.
    const early = (p: Promise<unknown>) => void p.catch(() => {});
    for (const t of new Set([...measured, ...(isNative(req.tokenIn) ? [] : [tokenIn])])) early(tokenSlots(ctx.rpc, t, signal));
    early(ctx.reader.tokenDecimals([wrapped, ...usdTokens, tokenIn, tokenOut], signal));
    // The latest head the follower has read (usually with the known pools' state), or one read now
    // with this request's never-asked pool lookups in the same round trip.
    const head = await ctx.follower.current(signal, () => ctx.lookup.unaskedRound(discoveryQueries(input).queries, 'latest'));
    const block = head.block;
    const gasPrice = req.gasPrice ?? head.gasPrice;

    const v4Pools = this.v4.refs(ctx.rpc, req, wrapped, { number: Number(BigInt(block.tag)), hash: block.hash });
    const { refs, byPair } = await discoverPools(ctx.lookup, ctx.discovered, { ...input, v4Pools }, block, signal);
    ctx.follower.touch(refs);
    // Measured beside the state read (no round trip of its own), then cached for minutes.
    const [states, fees] = await Promise.all([
      ctx.reader.readStates(refs, block, signal),
      ctx.fees.check(
        measured.flatMap((token) => {
          const pool = refs.find((r) => r.kind !== 'v4' && (r.token0 === token || r.token1 === token));
          return pool ? [{ token, pool: pool.address }] : [];
        }),
        block,
        signal,
      ),
    ]);
    refuseTransferFees(fees, tokenIn);

    for (let attempt = 0; ; attempt++) {
      try {
        return await this.search(req, {
          tokenIn,
          tokenOut,
          wrapped,
          gasPrice,
          block,
          sequences,
          byPair,
          states,
          usdTokens,
          ctx,
          signal,
          model: gasModelFrom(settings.gas_model),
        });
      } catch (err) {
        if (!(err instanceof MissingTickData) || attempt >= MAX_TICK_RELOADS) throw err;
        await this.loadMoreTicks(ctx, states, err, block, signal);
      }
    }
  }

  /**
   * Reads more bitmap words after a quote walked into an unread one: many beyond the edge it
   * walked over (a large trade through thin liquidity walks empty words towards the price limit),
   * and some on both sides of every other V3/V4 pool, which the same search pushes as far. Each
   * reload is a round trip or two, so it reads wide rather than often.
   */
  private async loadMoreTicks(
    ctx: NodeContext,
    states: Map<string, PoolState>,
    missing: MissingTickData,
    block: BlockRef,
    signal: AbortSignal,
  ): Promise<void> {
    const requests: { pool: string; state: V3PoolState; word: number }[] = [];
    const extend = (pool: string, state: V3PoolState, dir: number, count: number) => {
      const known = [...state.bitmap.keys()];
      const from = dir < 0 ? Math.min(...known) - 1 : Math.max(...known) + 1;
      for (let i = 0; i < count; i++) requests.push({ pool, state, word: from + dir * i });
    };
    for (const [pool, s] of states) {
      if (s.kind === 'v2') continue;
      const known = [...s.state.bitmap.keys()];
      if (s.state === missing.pool || (!missing.pool && !s.state.bitmap.has(missing.word))) {
        extend(pool, s.state, missing.word < Math.min(...known) ? -1 : 1, EXTRA_WORDS_WIDE);
      } else {
        extend(pool, s.state, -1, EXTRA_WORDS);
        extend(pool, s.state, 1, EXTRA_WORDS);
      }
    }
    await ctx.reader.loadWords(requests, block, signal);
  }

  private async search(
    req: SourceRequest,
    c: {
      tokenIn: string;
      tokenOut: string;
      wrapped: string;
      gasPrice: bigint;
      block: BlockRef;
      sequences: string[][];
      byPair: Map<string, PoolRef[]>;
      states: Map<string, PoolState>;
      usdTokens: string[];
      ctx: NodeContext;
      signal: AbortSignal;
      model: GasModel;
    },
  ): Promise<FoundRoute> {
    const candidates = buildCandidates(c.sequences, c.byPair, c.states, req.amountIn);
    if (candidates.length === 0)
      throw new ApiError('no_route', 'No supported pool connects these tokens (directly or via the configured connectors).');
    const nativeIn = isNative(req.tokenIn);
    const nativeOut = isNative(req.tokenOut);
    // Gas in output-token units: the native coin's rate through the best wrapped→output pool.
    const nativeToOut = this.rate(c.wrapped, c.tokenOut, c.byPair, c.states);
    const gasOf = (p: CandidatePath) =>
      routeGas([{ hops: p.pools.map((pool) => ({ kind: pool.kind })) }], false, false, c.model) - routeGas([], false, false, c.model);
    const split = optimizeSplit(
      candidates.map((p) => ({
        quote: (amount: bigint) => pathOutput(p, c.states, amount),
        gasCost: nativeToOut ? (BigInt(gasOf(p)) * c.gasPrice * nativeToOut.num) / nativeToOut.den : 0n,
        pools: p.pools.map((pool) => pool.address),
      })),
      req.amountIn,
    );
    if (!split) throw new ApiError('no_route', 'The pools connecting these tokens cannot take this amount.');

    const paths: RoutePath[] = [];
    const gasShapes = [];
    const used: { amountIn: bigint; pools: PoolRef[]; tokens: string[] }[] = [];
    for (const a of split.allocations) {
      const cand = candidates[a.index];
      const quotes = quotePath(cand, c.states, a.amountIn);
      let amount = a.amountIn;
      const hops: Hop[] = cand.pools.map((pool, i) => {
        const hop: Hop = {
          source: pool.source,
          kind: pool.kind,
          pool: pool.kind === 'v4' ? pool.address : checksum(pool.address),
          tokenIn: checksum(cand.tokens[i]),
          tokenOut: checksum(cand.tokens[i + 1]),
          amountIn: amount,
          amountOut: quotes[i].amountOut,
          fee: pool.kind === 'v2' ? pool.fee * 100 : pool.fee,
        };
        if (pool.v4) {
          const zeroForOne = cand.tokens[i] === pool.token0;
          const state = c.states.get(pool.address)?.state as { fees?: [number, number] } | undefined;
          // The fee the trader pays in this direction: the LP fee plus any protocol fee.
          hop.fee = state?.fees?.[zeroForOne ? 0 : 1] ?? pool.fee;
          hop.v4 = {
            currencyIn: checksum(zeroForOne ? pool.v4.currency0 : pool.v4.currency1),
            currencyOut: checksum(zeroForOne ? pool.v4.currency1 : pool.v4.currency0),
            fee: pool.fee,
            tickSpacing: pool.v4.tickSpacing,
          };
        }
        amount = quotes[i].amountOut;
        return hop;
      });
      paths.push({ amountIn: a.amountIn, amountOut: amount, hops });
      used.push({ amountIn: a.amountIn, pools: cand.pools, tokens: cand.tokens });
      gasShapes.push({
        hops: cand.pools.map((pool, i) => ({
          kind: pool.kind,
          ticksCrossed: quotes[i].ticksCrossed,
          nativeOut: hops[i].v4?.currencyOut === ZERO_ADDRESS,
        })),
      });
    }
    const amountOut = paths.reduce((s, p) => s + p.amountOut, 0n);
    const gas = BigInt(routeGas(gasShapes, nativeIn, nativeOut, c.model, req.toOther));
    const headroom = simulationHeadroom(paths, c.states, c.block);
    const usd = await usdPricer({
      reader: c.ctx.reader,
      block: c.block,
      signal: c.signal,
      wrapped: c.wrapped,
      usdTokens: c.usdTokens,
      tokens: [c.tokenIn, c.tokenOut],
      byPair: c.byPair,
      states: c.states,
    });
    const gasUsd = usd.value(c.wrapped, gas * c.gasPrice);
    return {
      route: { tokenIn: req.tokenIn, tokenOut: req.tokenOut, amountIn: req.amountIn, amountOut, paths },
      meta: {
        source: 'onchain',
        blockNumber: Number(BigInt(c.block.tag)),
        gas,
        gasSource: 'model',
        simulationHeadroom: headroom,
        gasPrice: c.gasPrice,
        gasUsd,
        amountInUsd: usd.value(c.tokenIn, req.amountIn),
        amountOutUsd: usd.value(c.tokenOut, amountOut),
        priceImpactBps: priceImpactBps(used, amountOut, c.states),
      },
    };
  }

  /** Output per unit of input through the best direct pool, for small amounts; 1:1 for the same token. */
  private rate(
    from: string,
    to: string,
    byPair: Map<string, PoolRef[]>,
    states: Map<string, PoolState>,
  ): { num: bigint; den: bigint } | undefined {
    if (from === to) return { num: 1n, den: 1n };
    const probe = 10n ** 15n;
    let best = 0n;
    for (const pool of byPair.get(pairKey(from, to)) ?? []) {
      const out = pathOutput({ tokens: [from, to], pools: [pool] }, states, probe);
      if (out > best) best = out;
    }
    return best > 0n ? { num: best, den: probe } : undefined;
  }
}
