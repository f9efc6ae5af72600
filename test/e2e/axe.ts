import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * Runs axe-core on the page as it is now and fails on serious or critical violations. The script is
 * evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not block.
 */
export async function assertAccessible(page: Page, where: string): Promise<Violation[]> {
  if ((await page.evaluate('typeof window.axe')) !== 'object') await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ') + ' :: ' + (n.failureSummary || '').split('\\n').slice(1, 2).join('')),
  })))`)) as Violation[];
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.join(' | ')}`),
    [],
    `accessibility violations on ${where}`,
  );
  return violations;
}
