/** Amounts as people type them ("1.5") and as the chain counts them (wei-like integers). */

/** "1.5" with 18 decimals → "1500000000000000000"; null when it is not a positive decimal that fits. */
export function parseUnits(text: string, decimals: number): string | null {
  const m = /^(\d*)(?:\.(\d*))?$/.exec(text.trim().replace(/[_\s,]/g, ''));
  if (!m || (!m[1] && !m[2])) return null;
  const fraction = m[2] ?? '';
  if (fraction.replace(/0+$/, '').length > decimals) return null;
  const value = BigInt((m[1] || '0') + fraction.padEnd(decimals, '0'));
  return value > 0n && value < 2n ** 256n ? value.toString() : null;
}

/** "1500000000000000000" with 18 decimals → "1.5" (grouped: "1,234.5"). */
export function formatUnits(raw: string, decimals: number, maxFraction = 6): string {
  let value: bigint;
  try {
    value = BigInt(raw);
  } catch {
    return raw;
  }
  const base = 10n ** BigInt(decimals);
  const whole = value / base;
  let fraction = (value % base).toString().padStart(decimals, '0').slice(0, maxFraction).replace(/0+$/, '');
  if (!fraction && value % base !== 0n && whole === 0n) fraction = (value % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${whole.toLocaleString('en')}${fraction ? `.${fraction}` : ''}`;
}
