import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, BackendProcess, rawRequest } from '../helpers/backend-process.js';
import { NATIVE } from './check-calldata.js';

const TOKEN_IN = '0x55d398326f99059fF775485246999027B3197955';
const TOKEN_OUT = '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d';
const SENDER = '0x1111111111111111111111111111111111111111';
const BAD_CHECKSUM = TOKEN_IN.replace('fF7', 'Ff7'); // one letter's case flipped

let proc: BackendProcess;
let swapUrl: string;
let swapPort: number;

before(async () => {
  proc = await BackendProcess.start();
  const m = await proc.waitForLine(/^swap builder listening on (http:\/\/127\.0\.0\.1:(\d+))$/);
  swapUrl = m[1];
  swapPort = Number(m[2]);
});

after(async () => {
  await proc.stop();
  proc.cleanup();
});

const VALID = { chain: 'bsc', tokenIn: TOKEN_IN, tokenOut: TOKEN_OUT, amountIn: '1000000000000000000', sender: SENDER };
const now = () => Math.floor(Date.now() / 1000);

/** [field, bad value (undefined = omitted), message pattern naming the rule] */
const CASES: [string, unknown, RegExp][] = [
  ['chain', undefined, /chain is required/],
  ['chain', 'polygon', /chain must be one of: bsc, ethereum/],
  ['tokenIn', undefined, /tokenIn is required/],
  ['tokenIn', '0x1234', /tokenIn must be 0x followed by 40 hex digits/],
  ['tokenIn', BAD_CHECKSUM, /tokenIn has mixed case but fails the EIP-55 checksum/],
  ['tokenOut', 12345, /tokenOut must be a 0x-prefixed address string/],
  ['tokenOut', TOKEN_IN.toLowerCase(), /tokenOut must differ from tokenIn/],
  ['amountIn', undefined, /amountIn is required/],
  ['amountIn', 1000, /amountIn must be a decimal string/],
  ['amountIn', '0', /amountIn must be a positive integer/],
  ['amountIn', '-5', /amountIn must be a decimal string of digits only/],
  ['amountIn', '1e18', /amountIn must be a decimal string of digits only/],
  ['amountIn', ' 100', /amountIn must be a decimal string of digits only/],
  ['amountIn', '1.5', /amountIn must be a decimal string of digits only/],
  ['amountIn', '007', /without leading zeros/],
  ['amountIn', (1n << 256n).toString(), /amountIn must be below 2\^256/],
  ['sender', undefined, /sender is required/],
  ['sender', '0x0000000000000000000000000000000000000000', /sender must be a wallet address/],
  ['sender', NATIVE, /sender must be a wallet address/],
  ['recipient', BAD_CHECKSUM, /recipient has mixed case but fails the EIP-55 checksum/],
  ['slippageTolerance', -1, /between 0 and 5000/],
  ['slippageTolerance', 5001, /between 0 and 5000/],
  ['slippageTolerance', 1.5, /slippageTolerance must be an integer/],
  ['slippageTolerance', '50', /slippageTolerance must be an integer number of basis points/],
  ['deadline', now() - 10, /deadline must be in the future/],
  ['deadline', now() + 100.5, /deadline must be an integer/],
  ['deadline', '1900000000', /deadline must be an integer Unix timestamp/],
  ['includedSources', [], /includedSources must not be empty/],
  ['includedSources', ['swapa', 'sushiswap'], /unknown source "sushiswap"; allowed: swapa, swapav3, swapb, swapb-v3/],
  ['includedSources', 'swapa', /includedSources must be an array/],
  ['gasPrice', '0', /gasPrice must be a positive integer/],
  ['gasPrice', '5gwei', /gasPrice must be a decimal string of digits only/],
];

test('every validation rule answers 400 validation_failed naming the field and the rule', async (t) => {
  for (const [field, value, message] of CASES) {
    await t.test(`${field} = ${JSON.stringify(value) ?? '(missing)'}`, async () => {
      const body: Record<string, unknown> = { ...VALID };
      if (value === undefined) delete body[field];
      else body[field] = value;
      const res = await api(swapUrl, 'POST', '/api/v1/route/build', { body });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'validation_failed');
      assert.equal(res.body.error.field, field);
      assert.match(res.body.error.message, message);
    });
  }
});

test('a JSON array body is refused as not an object', async () => {
  const res = await api(swapUrl, 'POST', '/api/v1/route/build', { body: [VALID] });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.field, 'body');
  assert.match(res.body.error.message, /must be a JSON object/);
});

test('a valid request passes validation (all-lowercase, all-uppercase and checksummed addresses)', async () => {
  const upper = '0x' + TOKEN_OUT.slice(2).toUpperCase();
  for (const body of [
    VALID,
    {
      ...VALID,
      tokenIn: TOKEN_IN.toLowerCase(),
      tokenOut: upper,
      recipient: SENDER,
      deadline: now() + 60,
      includedSources: ['swapa', 'swapa'],
    },
  ]) {
    const res = await api(swapUrl, 'POST', '/api/v1/route/build', { body });
    // No swap.yaml in this data dir: the request got past validation to the settings.
    assert.equal(res.status, 500, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'config_missing');
    assert.match(res.body.error.message, /swap\.yaml is missing.*chains\.bsc/);
  }
});

test('the swap listener keeps the Host, JSON-only and size defences', async () => {
  const body = JSON.stringify(VALID);
  const evil = await rawRequest(swapPort, {
    method: 'POST',
    path: '/api/v1/route/build',
    headers: { host: 'evil.example', 'content-type': 'application/json' },
    body,
  });
  assert.equal(evil.status, 403);
  const form = await rawRequest(swapPort, { method: 'POST', path: '/api/v1/route/build', headers: { 'content-type': 'text/plain' }, body });
  assert.equal(form.status, 415);
  const big = await rawRequest(swapPort, {
    method: 'POST',
    path: '/api/v1/route/build',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...VALID, pad: 'x'.repeat(1_100_000) }),
  });
  assert.equal(big.status, 413);
  const health = await api(swapUrl, 'GET', '/health');
  assert.deepEqual(health.body, { status: 'ok' });
});
