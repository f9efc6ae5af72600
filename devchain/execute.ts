#!/usr/bin/env node
/**
 * `npm run devchain:execute -- ROUTE.json [-rpc URL]`: sends a built route as a wallet would, from
 * the route's sender (an unlocked anvil account on the devchain): approve the returned spender
 * (unless the input is native), then executorData to aggregatorAddress with value. Prints what the
 * recipient received next to amountOut and minAmountOut.
 */
import { readFileSync } from 'node:fs';
import { Contract, JsonRpcProvider } from 'ethers';

const NATIVE = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const ERC20 = ['function approve(address,uint256) returns (bool)', 'function balanceOf(address) view returns (uint256)'];
const USAGE = 'usage: npm run devchain:execute -- ROUTE.json [-rpc URL] [-from ADDRESS] [-to RECIPIENT]\n';

function args(argv: string[]) {
  const out: { file?: string; rpc: string; from?: string; to?: string } = { rpc: 'http://127.0.0.1:8545' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-rpc' || a === '--rpc') out.rpc = argv[++i] ?? '';
    else if (a === '-from' || a === '--from') out.from = argv[++i];
    else if (a === '-to' || a === '--to') out.to = argv[++i];
    else if (a === '-h' || a === '--help') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else if (!a.startsWith('-') && !out.file) out.file = a;
    else {
      process.stderr.write(`error: unknown argument ${a}\n${USAGE}`);
      process.exit(2);
    }
  }
  if (!out.file) {
    process.stderr.write(`error: give the route JSON file (the body /api/v1/route/build answered)\n${USAGE}`);
    process.exit(2);
  }
  return out as { file: string; rpc: string; from?: string; to?: string };
}

async function main(): Promise<void> {
  const opts = args(process.argv.slice(2));
  const route = JSON.parse(readFileSync(opts.file, 'utf8')) as Record<string, string>;
  if (!route.executorData)
    throw new Error(`${opts.file} is not a route response (no executorData): ${JSON.stringify(route).slice(0, 200)}`);
  const provider = new JsonRpcProvider(opts.rpc, undefined, { staticNetwork: true, cacheTimeout: -1 });
  const from = opts.from ?? (await provider.listAccounts())[1]!.address;
  const signer = await provider.getSigner(from);
  const recipient = opts.to ?? from;
  const balance = async () =>
    route.tokenOut.toLowerCase() === NATIVE
      ? provider.getBalance(recipient)
      : ((await new Contract(route.tokenOut, ERC20, provider).getFunction('balanceOf')(recipient)) as bigint);
  if (route.tokenIn.toLowerCase() !== NATIVE) {
    const tx = await new Contract(route.tokenIn, ERC20, signer).getFunction('approve').send(route.executorAddress, BigInt(route.amountIn));
    await tx.wait();
    console.log(`approved ${route.amountIn} for ${route.executorAddress} (tx ${tx.hash})`);
  }
  const before = await balance();
  const tx = await signer.sendTransaction({
    to: route.aggregatorAddress,
    data: route.executorData,
    value: BigInt(route.value),
    gasLimit: BigInt(route.gas) * 2n,
  });
  const receipt = await tx.wait();
  const fee = route.tokenOut.toLowerCase() === NATIVE && recipient === from ? receipt!.gasUsed * receipt!.gasPrice : 0n;
  const received = (await balance()) - before + fee;
  console.log(`swap sent: tx ${tx.hash}, status ${receipt!.status}, gasUsed ${receipt!.gasUsed} (estimate ${route.gas})`);
  console.log(`received ${received} (amountOut ${route.amountOut}, minAmountOut ${route.minAmountOut})`);
  provider.destroy();
}

main().catch((err: Error) => {
  process.stderr.write(`error: ${(err as { shortMessage?: string }).shortMessage ?? err.message}\n`);
  process.exit(1);
});
