/**
 * Call data of the pool reads sent at every block, written without ethers' generic ABI coder: a
 * followed chain re-encodes about 1,500 of them per block, and encodeFunctionData showed in the
 * live-chain profile. The selectors come from the ABI once; the one argument (a bitmap word, a
 * tick) is a two's-complement 32-byte word, as the ABI encodes int16 and int24.
 */
import { wordDigits } from './abi-words.js';
import { V2_PAIR, V3_POOL } from './pool-abi.js';

const selector = (iface: typeof V2_PAIR, name: string) => iface.getFunction(name)!.selector;

export const GET_RESERVES = selector(V2_PAIR, 'getReserves');
export const PRICE0_CUMULATIVE_LAST = selector(V2_PAIR, 'price0CumulativeLast');
export const SLOT0 = selector(V3_POOL, 'slot0');
export const LIQUIDITY = selector(V3_POOL, 'liquidity');
export const TICK_SPACING = selector(V3_POOL, 'tickSpacing');
const TICK_BITMAP = selector(V3_POOL, 'tickBitmap');
const TICKS = selector(V3_POOL, 'ticks');

export const tickBitmapData = (word: number) => TICK_BITMAP + wordDigits(word);
export const ticksData = (tick: number) => TICKS + wordDigits(tick);
