import path from 'node:path';
import { ApiError } from '../../http/errors.js';
import type { SourceRequest } from '../liquidity-source.js';
import type { JsonRpcClient } from './json-rpc.js';
import type { PoolRef } from './pool-reader.js';
import { V4PoolIndex } from './v4-pool-index.js';
import { unusableReason } from './v4-state.js';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const DEFAULT_LOG_RANGE = 5_000;

/** The V4 side of the on-chain source: one pool index per node and PoolManager, skip reasons logged once. */
export class V4Pools {
  private readonly indexes = new Map<string, V4PoolIndex>();
  /** V4 pools whose skip reason was logged already (once per pool). */
  private readonly skipped = new Set<string>();

  /** Indexes whose background sync failed (logged once each). */
  private readonly failing = new Set<string>();

  /** `dataDir`: where each index is kept between runs (none: in memory only). */
  constructor(
    private readonly log: (line: string) => void,
    private readonly dataDir?: string,
  ) {}

  /** Brings the node's known indexes up to `head` in the background, so a request finds them current. */
  syncKnown(rpc: JsonRpcClient, head: { number: number; hash: string }): void {
    for (const [key, index] of this.indexes) if (key.startsWith(`${rpc.url}|`)) this.syncInBackground(key, index, head);
  }

  private syncInBackground(key: string, index: V4PoolIndex, head: { number: number; hash: string }): void {
    index.sync(head, AbortSignal.timeout(120_000)).then(
      () => this.failing.delete(key),
      (err: Error) => {
        if (this.failing.has(key)) return;
        this.failing.add(key);
        this.log(
          `swap: the V4 pool index of ${index.manager} cannot be updated (${err.message}); hookless pools are still found by PoolId`,
        );
      },
    );
  }

  /**
   * The routable V4 pools of each enabled source with a `v4:` block, from its PoolManager's
   * Initialize logs. Pools the router's V4 adapter cannot swap exactly (hooks, dynamic fee) are
   * left out, and the reason is logged once per pool.
   */
  refs(rpc: JsonRpcClient, req: SourceRequest, wrapped: string, head: { number: number; hash: string }): PoolRef[] {
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
      const key = `${rpc.url}|${manager}|${src.v4.from_block}`;
      let index = this.indexes.get(key);
      if (!index) {
        const file = this.dataDir ? path.join(this.dataDir, `swap-v4-index-${req.chain}-${manager}.json`) : undefined;
        index = new V4PoolIndex(rpc, manager, src.v4.from_block, src.v4.log_range ?? DEFAULT_LOG_RANGE, file);
        this.indexes.set(key, index);
      }
      // Never waited on: hookless pools of the standard tiers are looked up by PoolId meanwhile.
      this.syncInBackground(key, index, head);
      for (const info of index.known) {
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
}
