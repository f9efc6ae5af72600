#!/usr/bin/env node
import path from 'node:path';
import { defaultDataDir } from '../backend/data/data-dir.js';
import { startDevchain, type Devchain } from './devchain.js';

const USAGE = `usage: npm run devchain -- [-data DIR]

Starts a local EVM chain (anvil, chain id 56) with the swap router, four DEX sources and
seeded pools, writes DIR/swap.yaml for it (default ${defaultDataDir()}) and runs until Ctrl-C.
`;

function parse(argv: string[]): { dataDir: string } {
  let dataDir = defaultDataDir();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.replace(/^--?/, '-').split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag === '-h' || flag === '-help') {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    if (flag === '-data') {
      const value = inline ?? argv[++i];
      if (!value) fail('flag -data needs a directory');
      dataDir = path.resolve(value);
      continue;
    }
    fail(`unknown argument ${arg}`);
  }
  return { dataDir };
}

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n${USAGE}`);
  process.exit(2);
}

function describe(chain: Devchain): string {
  const tokens = chain.tokens
    .map((t) => `  ${t.symbol.padEnd(5)} ${t.address}  ${String(t.decimals).padStart(2)} decimals  ~$${t.usd}`)
    .join('\n');
  return `devchain ready
rpc url:   ${chain.rpcUrl}
chain id:  ${chain.chainId} (use "chain": "bsc" in route requests)
native:    0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE (BNB), wrapped ${chain.addresses.wrappedNative}
router:    ${chain.addresses.router} (aggregatorAddress)
approve:   ${chain.addresses.tokenApprove} (executorAddress, the approve() spender)
V4:        PoolManager ${chain.addresses.v4.poolManager}, adapter ${chain.addresses.v4.adapter} (swapav3 v4 pools: ${chain.v4Pools.filter((p) => p.routable).length} routable, ${chain.v4Pools.filter((p) => !p.routable).length} hooked/dynamic that must never be used)
tokens:
${tokens}
funded account (anvil's PUBLIC test key; never use it on a real chain):
  address      ${chain.user.address}
  private key  ${chain.user.privateKey}
swap.yaml written to ${chain.swapYamlPath}
start the backend with the same data directory in another terminal:
  npm run backend -- -data ${path.dirname(chain.swapYamlPath ?? '')}
press Ctrl-C to stop the chain (its state is lost).
`;
}

async function main(): Promise<void> {
  const { dataDir } = parse(process.argv.slice(2));
  const started = Date.now();
  const chain = await startDevchain({ dataDir });
  process.stdout.write(describe(chain) + `(started and deployed in ${Date.now() - started} ms)\n`);
  const shutdown = (): void => {
    void chain.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((err: Error) => {
  process.stderr.write(`error: ${err.message}\n`);
  process.exit(1);
});
