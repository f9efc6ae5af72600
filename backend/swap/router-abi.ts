import { Interface } from 'ethers';

/** The public DEX-aggregator router's two entry points we call (facts/dexrouter.md). */
const BASE_REQUEST =
  'tuple(uint256 fromToken, address toToken, uint256 fromTokenAmount, uint256 minReturnAmount, uint256 deadLine) baseRequest';
const ROUTER_PATH = 'tuple(address[] mixAdapters, address[] assetTo, uint256[] rawData, bytes[] extraData, uint256 fromToken)';
const PMM_REQUEST =
  'tuple(uint256 pathIndex, address payer, address fromToken, address toToken, uint256 fromTokenAmountMax, uint256 toTokenAmountMax, uint256 salt, uint256 deadLine, bool isPushOrder, bytes extension)';

export const ROUTER_INTERFACE = new Interface([
  `function smartSwapByOrderId(uint256 orderId, ${BASE_REQUEST}, uint256[] batchesAmount, ${ROUTER_PATH}[][] batches, ${PMM_REQUEST}[] extraData) payable returns (uint256 returnAmount)`,
  `function smartSwapTo(uint256 orderId, address receiver, ${BASE_REQUEST}, uint256[] batchesAmount, ${ROUTER_PATH}[][] batches, ${PMM_REQUEST}[] extraData) payable returns (uint256 returnAmount)`,
  'function swapWrap(uint256 orderId, uint256 rawdata) payable',
  `function swapWrapToWithBaseRequest(uint256 orderId, address receiver, ${BASE_REQUEST}) payable`,
]);

export const SMART_SWAP_BY_ORDER_ID_SELECTOR = '0xb80c2f09';
export const SMART_SWAP_TO_SELECTOR = '0x03b87e5f';
/** `swapWrap(uint256 orderId, uint256 rawdata)` and `swapWrapToWithBaseRequest(uint256, address, BaseRequest)`. */
export const SWAP_WRAP_SELECTOR = '0x01617fab';
export const SWAP_WRAP_TO_SELECTOR = '0x98d2ac62';

/** rawData layout: bit 255 reverse, bits 160..175 weight (out of 10000), bits 0..159 pool. */
export const REVERSE_BIT = 1n << 255n;
export const WEIGHT_SHIFT = 160n;
export const ADDRESS_MASK = (1n << 160n) - 1n;
export const WEIGHT_MASK = 0xffffn;
export const FULL_WEIGHT = 10_000;
