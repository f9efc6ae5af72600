import { checksum } from '../checksum.js';
import { ApiError } from '../../http/errors.js';
import type { LiquiditySource, SourceRequest } from '../liquidity-source.js';
import type { FoundRoute, Hop, RoutePath } from '../route-model.js';
import { isNative, type ChainName } from '../route-request.js';
import { requireSetting, type ChainSettings } from '../swap-settings.js';
import { gasModelFrom, routeGas, type GasModel } from './gas-model.js';
import { describeNode, JsonRpcClient, RpcError } from './json-rpc.js';
import { buildCandidates, MissingTickData, pairKey, pathOutput, quotePath, tokenSequences, type CandidatePath } from './path-candidates.js';
import { discoverPools, type DiscoveryCache } from './pool-discovery.js';
import { PoolReader, type BlockRef, type PoolRef, type PoolState } from './pool-reader.js';
import { optimizeSplit } from './split-optimizer.js';
import { usdPricer } from './usd-prices.js';
import { V4PoolIndex } from './v4-pool-index.js';
import { unusableReason } from './v4-state.js';

/**
 * A simulation runs in the latest block's context. A V2 pair that traded in that very block skips
 * its price-accumulator update there (timeElapsed = 0) but pays it, two cold SSTOREs, when the
 * wallet's transaction lands in a later block; a V3 pool likewise writes a new oracle observation
 * (its timestamp is not read, so V3 hops always get the allowance). V4 pools keep no oracle.
 */
const V2_ACCUMULATOR_GAS = 12_000n;
const V3_ORACLE_GAS = 8_000n;

function accumulatorHeadroom(hop: Hop, states: Map<string, PoolState>, block: BlockRef): bigint {
  if (hop.kind === 'v3') return V3_ORACLE_GAS;
  if (hop.kind !== 'v2') return 0n;
  const s = states.get(hop.pool.toLowerCase());
  const last = s?.kind === 'v2' ? s.state.timestampLast : undefined;
  return last === undefined || block.timestamp === undefined || last === block.timestamp ? V2_ACCUMULATOR_GAS : 0n;
}

export const CHAIN_IDS: Record<ChainName, number> = { bsc: 56, ethereum: 1 };
const MAX_TICK_RELOADS = 12;
const EXTRA_WORDS = 8;
const EXTRA_WORDS_V4 = 64;

interface NodeContext {
  rpc: JsonRpcClient;
  reader: PoolReader;
  chainChecked: boolean;
  discovered: DiscoveryCache;
  /** V4 pool indexes per PoolManager (and its from_block). */
  v4: Map<string, V4PoolIndex>;
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const DEFAULT_LOG_RANGE = 5_000;

/**
 * The embedded liquidity source (`liquidity: onchain`): discovers pools through each enabled
 * source's factory for the direct pair and via the connectors, reads their state at one block,
 * quotes with exact pool math and splits over paths to maximise output net of gas.
 */
export class OnchainSource implements LiquiditySource {
  readonly name = 'onchain' as const;
  private readonly nodes = new Map<string, NodeContext>();
  /** V4 pools whose skip reason was logged already (once per pool). */
  private readonly skipped = new Set<string>();

  /** `log` receives one line per V4 pool that is skipped (hooks, dynamic fee), once. */
  constructor(private readonly log: (line: string) => void = () => {}) {}

  private node(url: string): NodeContext {
    let ctx = this.nodes.get(url);
    if (!ctx) {
      const rpc = new JsonRpcClient(url);
      ctx = { rpc, reader: new PoolReader(rpc), chainChecked: false, discovered: new Map(), v4: new Map() };
      this.nodes.set(url, ctx);
    }
    return ctx;
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
    const ctx = this.node(url);
    const head = await ctx.rpc.batch<unknown>(
      [
        { method: 'eth_getBlockByNumber', params: ['latest', false] },
        { method: 'eth_gasPrice', params: [] },
        ...(ctx.chainChecked ? [] : [{ method: 'eth_chainId', params: [] }]),
      ],
      signal,
    );
    if (!ctx.chainChecked) {
      const id = Number(BigInt(head[2] as string));
      if (id !== CHAIN_IDS[req.chain]) {
        throw new ApiError(
          'upstream_error',
          `on-chain liquidity source: the RPC node for ${req.chain} reports chain id ${id}, expected ${CHAIN_IDS[req.chain]}`,
        );
      }
      ctx.chainChecked = true;
    }
    const latest = head[0] as { number?: string; hash?: string; timestamp?: string } | null;
    if (!latest?.number || !latest.hash) throw new RpcError(`the RPC node ${describeNode(url)} returned no latest block`);
    // State is read at this block number and cached under its hash, so a reorg (or a test's
    // evm_revert) that reuses the number never serves stale state.
    const block: BlockRef = {
      tag: latest.number,
      hash: latest.hash,
      timestamp: latest.timestamp ? Number(BigInt(latest.timestamp)) : undefined,
    };
    const gasPrice = req.gasPrice ?? BigInt(head[1] as string);
    const tokenIn = isNative(req.tokenIn) ? wrapped : req.tokenIn.toLowerCase();
    const tokenOut = isNative(req.tokenOut) ? wrapped : req.tokenOut.toLowerCase();
    if (tokenIn === tokenOut)
      throw new ApiError('no_route', 'Swapping the native coin for its wrapped token (or back) is a wrap, not a route.');
    const usdTokens = (settings.usd_tokens ?? []).map((t) => t.toLowerCase());

    const sequences = tokenSequences(tokenIn, tokenOut, settings.connectors ?? []);
    const v4Pools = await this.v4Pools(ctx, req, wrapped, { number: Number(BigInt(block.tag)), hash: block.hash }, signal);
    const { refs, byPair } = await discoverPools(
      ctx.reader,
      ctx.discovered,
      { chain: req.chain, sources: req.sources, sequences, tokenIn, tokenOut, wrapped, usdTokens, v4Pools },
      block,
      signal,
    );
    const states = await ctx.reader.readStates(refs, block, signal);

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
        await this.loadMoreTicks(ctx, states, err.word, block, signal);
      }
    }
  }

  /**
   * The routable V4 pools of each enabled source with a `v4:` block, from its PoolManager's
   * Initialize logs. Pools the router's V4 adapter cannot swap exactly (hooks, dynamic fee) are
   * left out, and the reason is logged once per pool.
   */
  private async v4Pools(
    ctx: NodeContext,
    req: SourceRequest,
    wrapped: string,
    head: { number: number; hash: string },
    signal: AbortSignal,
  ): Promise<PoolRef[]> {
    const refs: PoolRef[] = [];
    for (const src of req.sources) {
      if (!src.v4) continue;
      const where = `swap.yaml: chains.${req.chain}.sources.${src.name}.v4`;
      if (!src.v4.pool_manager) throw new ApiError('config_missing', `${where}.pool_manager is not set`);
      if (!src.v4.adapter) throw new ApiError('config_missing', `${where}.adapter is not set`);
      // Indexing from genesis on a real chain would take thousands of log requests: say where to start.
      if (src.v4.from_block === undefined)
        throw new ApiError('config_missing', `${where}.from_block is not set (the PoolManager's deployment block)`);
      const manager = src.v4.pool_manager.toLowerCase();
      const key = `${manager}:${src.v4.from_block}`;
      let index = ctx.v4.get(key);
      if (!index) {
        index = new V4PoolIndex(ctx.rpc, manager, src.v4.from_block, src.v4.log_range ?? DEFAULT_LOG_RANGE);
        ctx.v4.set(key, index);
      }
      for (const info of await index.sync(head, signal)) {
        const reason = unusableReason(info.hooks, info.fee);
        if (reason) {
          if (!this.skipped.has(info.id)) {
            this.skipped.add(info.id);
            this.log(`swap: V4 pool ${info.id} (${info.currency0}/${info.currency1}) is not used: ${reason}`);
          }
          continue;
        }
        const token0 = info.currency0 === ZERO_ADDRESS ? wrapped : info.currency0;
        const token1 = info.currency1 === ZERO_ADDRESS ? wrapped : info.currency1;
        if (token0 === token1) continue;
        refs.push({
          source: src.name,
          kind: 'v4',
          address: info.id,
          token0,
          token1,
          fee: info.fee,
          v4: { manager, currency0: info.currency0, currency1: info.currency1, tickSpacing: info.tickSpacing },
        });
      }
    }
    return refs;
  }

  /** Reads more bitmap words of every V3 pool that lacks the one a quote walked into. */
  private async loadMoreTicks(
    ctx: NodeContext,
    states: Map<string, PoolState>,
    word: number,
    block: BlockRef,
    signal: AbortSignal,
  ): Promise<void> {
    const requests = [];
    for (const [pool, s] of states) {
      if (s.kind === 'v2' || s.state.bitmap.has(word)) continue;
      const known = [...s.state.bitmap.keys()];
      const dir = word < Math.min(...known) ? -1 : 1;
      const from = dir < 0 ? Math.min(...known) - 1 : Math.max(...known) + 1;
      // V4 words come in one extsload per PoolManager, so reading many costs little more than one.
      const count = s.kind === 'v4' ? EXTRA_WORDS_V4 : EXTRA_WORDS;
      for (let i = 0; i < count; i++) requests.push({ pool, state: s.state, word: from + dir * i });
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
    const simulationHeadroom = paths.reduce(
      (sum, p) => sum + p.hops.reduce((s, h) => s + accumulatorHeadroom(h, c.states, c.block), 0n),
      0n,
    );
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
        simulationHeadroom,
        gasPrice: c.gasPrice,
        gasUsd,
        amountInUsd: usd.value(c.tokenIn, req.amountIn),
        amountOutUsd: usd.value(c.tokenOut, amountOut),
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
