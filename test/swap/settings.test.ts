import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ApiError } from '../../backend/http/errors.js';
import { enabledSources, loadChainSettings, requireSetting } from '../../backend/swap/swap-settings.js';
import { tempDir } from '../helpers/backend-process.js';

const EXAMPLE = fileURLToPath(new URL('../../../swap.example.yaml', import.meta.url));
const configMissing = (re: RegExp) => (e: unknown) =>
  e instanceof ApiError && e.code === 'config_missing' && e.status === 500 && re.test(e.message);

test('swap.example.yaml parses for both chains with the public router, approval and wrapped addresses', async () => {
  const bsc = await loadChainSettings(EXAMPLE, 'bsc', {});
  assert.equal(bsc.router, '0x6015126d7D23648C2e4466693b8DeaB005ffaba8');
  assert.equal(bsc.token_approve, '0x2c34A2Fb1d0b4f55de51E1d0bDEfaDDce6b7cDD6');
  assert.equal(bsc.wrapped_native, '0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c');
  const eth = await loadChainSettings(EXAMPLE, 'ethereum', {});
  assert.equal(eth.router, '0x2E1Dee213BA8d7af0934C49a23187BabEACa8764');
  assert.equal(eth.token_approve, '0x40aA958dd87FC8305b97f2BA922CDdCa374bcD7f');
  assert.equal(eth.wrapped_native, '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2');
  // Adapters are not published: the example leaves them for the operator, and says so when used.
  assert.throws(() => enabledSources(bsc, ['swapa']), configMissing(/chains\.bsc\.sources\.swapa\.adapter is not set/));
});

test('BSC_RPC_URL / ETHEREUM_RPC_URL override rpc_url', async () => {
  const bsc = await loadChainSettings(EXAMPLE, 'bsc', { BSC_RPC_URL: 'http://127.0.0.1:8545' });
  assert.equal(requireSetting(bsc, 'rpc_url'), 'http://127.0.0.1:8545');
  const eth = await loadChainSettings(EXAMPLE, 'ethereum', { BSC_RPC_URL: 'http://127.0.0.1:8545' });
  assert.equal(eth.rpc_url, 'https://ethereum-rpc.publicnode.com');
});

test('a broken swap.yaml names the line or the key, and a missing chain names chains.<chain>', async () => {
  const file = path.join(tempDir(), 'swap.yaml');
  writeFileSync(file, 'chains:\n  bsc:\n    router: [unclosed\n');
  await assert.rejects(loadChainSettings(file, 'bsc', {}), configMissing(/does not parse \(line \d+\)/));
  writeFileSync(file, 'chains:\n  bsc:\n    router: "0x1234"\n');
  await assert.rejects(loadChainSettings(file, 'bsc', {}), configMissing(/chains\.bsc\.router must be a 0x address/));
  // A typo under bsc does not break ethereum: that chain is simply not configured here.
  await assert.rejects(loadChainSettings(file, 'ethereum', {}), configMissing(/chains\.ethereum is not set/));
  writeFileSync(file, 'chains:\n  bsc:\n    liquidity: aggregator\n');
  const bsc = await loadChainSettings(file, 'bsc', {});
  assert.throws(() => requireSetting(bsc, 'token_approve'), configMissing(/chains\.bsc\.token_approve is not set/));
  assert.throws(() => enabledSources(bsc, undefined), configMissing(/chains\.bsc\.sources is not set/));
});
