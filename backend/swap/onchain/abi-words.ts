/** 32-byte ABI words, the unit of calldata, answers and storage; one place for the hex arithmetic the onchain readers share. */

/** The 64 hex digits (no 0x) of an integer's word; a negative one in two's complement, as the ABI encodes int types. */
export const wordDigits = (v: bigint | number): string => BigInt.asUintN(256, BigInt(v)).toString(16).padStart(64, '0');

/** The same word 0x-prefixed: a storage key or slot value, an override. */
export const hexWord = (v: bigint | number): string => `0x${wordDigits(v)}`;

/** Word `i` of a 0x-prefixed answer as an unsigned integer (0 past the answer's end). */
export const answerWord = (hex: string, i: number): bigint => BigInt(`0x${hex.slice(2 + i * 64, 2 + (i + 1) * 64) || '0'}`);
