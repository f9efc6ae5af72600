import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { compiledCacheDir, contractsDir } from './paths.js';

/** ABI and creation bytecode of one compiled contract. */
export interface CompiledContract {
  abi: unknown[];
  bytecode: string;
}

export type CompiledContracts = Record<string, CompiledContract>;

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

interface Solc {
  version(): string;
  compile(input: string): string;
}

const SETTINGS = {
  // Cancun: what BSC and Ethereum both run; anvil's default hardfork is newer.
  evmVersion: 'cancun',
  optimizer: { enabled: true, runs: 200 },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
};

function readSources(): Record<string, { content: string }> {
  const sources: Record<string, { content: string }> = {};
  for (const name of readdirSync(contractsDir)
    .filter((n) => n.endsWith('.sol'))
    .sort()) {
    sources[name] = { content: readFileSync(path.join(contractsDir, name), 'utf8') };
  }
  return sources;
}

/**
 * Compiles contracts/*.sol with solc-js (offline, standard JSON). The output is cached in
 * dist/contracts/ under a hash of the sources, settings and compiler version, because
 * solc-js takes many seconds and the sources rarely change.
 */
export function compileContracts(): CompiledContracts {
  const require = createRequire(import.meta.url);
  const sources = readSources();
  const solcPackage = require('solc/package.json') as { version: string };
  const key = createHash('sha256')
    .update(JSON.stringify({ sources, SETTINGS, solc: solcPackage.version }))
    .digest('hex')
    .slice(0, 16);
  const cacheFile = path.join(compiledCacheDir, `contracts-${key}.json`);
  try {
    return JSON.parse(readFileSync(cacheFile, 'utf8')) as CompiledContracts;
  } catch {
    // cache miss: compile below
  }
  const solc = require('solc') as Solc;
  const input = { language: 'Solidity', sources, settings: SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc ${solc.version()} failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }
  const compiled: CompiledContracts = {};
  for (const file of Object.values(output.contracts)) {
    for (const [name, c] of Object.entries(file)) {
      if (c.evm.bytecode.object.length === 0) continue; // interfaces and libraries-only
      compiled[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
    }
  }
  mkdirSync(compiledCacheDir, { recursive: true });
  // Write then rename so a concurrent reader never sees half a file.
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(compiled));
  renameSync(tmp, cacheFile);
  return compiled;
}
