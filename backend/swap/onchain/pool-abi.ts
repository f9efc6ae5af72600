import { Interface } from 'ethers';

/** The few read calls the on-chain source makes, per contract kind. */
export const V2_FACTORY = new Interface(['function getPair(address,address) view returns (address)']);
export const V2_PAIR = new Interface([
  'function getReserves() view returns (uint112,uint112,uint32)',
  'function price0CumulativeLast() view returns (uint256)',
]);
export const V3_FACTORY = new Interface(['function getPool(address,address,uint24) view returns (address)']);
export const V3_POOL = new Interface([
  'function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16, uint16, uint16, uint8, bool)',
  'function liquidity() view returns (uint128)',
  'function tickSpacing() view returns (int24)',
  'function tickBitmap(int16) view returns (uint256)',
  'function ticks(int24) view returns (uint128 liquidityGross, int128 liquidityNet, uint256, uint256, int56, uint160, uint32, bool)',
]);
export const ERC20 = new Interface(['function decimals() view returns (uint8)']);
