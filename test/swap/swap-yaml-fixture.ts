import { getAddress } from 'ethers';

/** Addresses the test swap.yaml configures (checksummed, as the response returns them). */
export const ROUTER = getAddress('0x6015126d7d23648c2e4466693b8deab005ffaba8');
export const TOKEN_APPROVE = getAddress('0x2c34a2fb1d0b4f55de51e1d0bdefaddce6b7cdd6');
export const WBNB = getAddress('0xbb4cdb9cbd36b01bd1cbaebf2de08d9173bc095c');
export const ADAPTERS: Record<string, string> = {
  swapa: getAddress('0x00000000000000000000000000000000000ada01'),
  swapav3: getAddress('0x00000000000000000000000000000000000ada02'),
  swapb: getAddress('0x00000000000000000000000000000000000ada03'),
  'swapb-v3': getAddress('0x00000000000000000000000000000000000ada04'),
};
export const V4_ADAPTER = getAddress('0x00000000000000000000000000000000000ada44');

/**
 * swap.yaml for the tests: bsc on the fake aggregator (500 ms timeout), ethereum on `onchain`.
 * `drop` leaves out one setting to provoke config_missing.
 */
export function swapYaml(aggregatorUrl: string, drop: { router?: boolean; adapterOf?: string } = {}): string {
  const adapter = (name: string) => (drop.adapterOf === name ? '' : `adapter: "${ADAPTERS[name].toLowerCase()}", `);
  return `# test settings
chains:
  bsc:
    liquidity: aggregator
    rpc_url: http://127.0.0.1:1
    aggregator:
      url: ${aggregatorUrl}/
      chain_name: bsc
      client_id: test-client
      timeout_ms: 500
${drop.router ? '' : `    router: "${ROUTER}"\n`}    token_approve: "${TOKEN_APPROVE}"
    wrapped_native: "${WBNB}"
    sources:
      swapa:    {kind: v2, ${adapter('swapa')}fee_bps: 25, exchanges: [pancake]}
      swapav3:  {kind: v3, ${adapter('swapav3')}fee_tiers: [100, 500, 2500, 10000], exchanges: [pancake-v3], v4: {pool_manager: "0x28e2Ea090877bF75740558f6BFB36A5ffeE9e9dF", adapter: "${V4_ADAPTER}", exchanges: [uniswap-v4]}}
      swapb:    {kind: v2, ${adapter('swapb')}fee_bps: 30, dynamic_fee: true, exchanges: [uniswap]}
      swapb-v3: {kind: v3, ${adapter('swapb-v3')}fee_tiers: [100, 500, 3000, 10000], exchanges: [uniswapv3]}
  ethereum:
    liquidity: onchain
    router: "0x2E1Dee213BA8d7af0934C49a23187BabEACa8764"
    token_approve: "0x40aA958dd87FC8305b97f2BA922CDdCa374bcD7f"
    wrapped_native: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"
    sources:
      swapb: {kind: v2, adapter: "0x00000000000000000000000000000000000ada03", fee_bps: 30, exchanges: [uniswap]}
`;
}
