import { Router } from 'express';
import { z } from 'zod';
import type { DataPaths } from '../data/data-dir.js';
import { ApiError } from '../http/errors.js';
import { listKnownTokens } from '../tokens/token-list.js';

const TokensQuery = z.object({
  chain: z.enum(['bsc', 'ethereum'], { error: 'chain must be bsc or ethereum' }).default('bsc'),
  /** Other tokens to describe (comma-separated 0x addresses), e.g. one the user pasted. */
  addresses: z
    .string()
    .regex(/^(0x[0-9a-fA-F]{40})(,0x[0-9a-fA-F]{40}){0,9}$/, 'addresses must be up to 10 comma-separated 0x addresses')
    .optional(),
});

/** `GET /api/swap/tokens?chain=bsc[&addresses=0x…,0x…]`: the swap page's token picker (symbols and decimals of swap.yaml's tokens). */
export function swapInfoRoutes(paths: DataPaths, env: NodeJS.ProcessEnv): Router {
  const router = Router();
  router.get('/api/swap/tokens', async (req, res) => {
    const parsed = TokensQuery.safeParse(req.query);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ApiError('validation_failed', issue.message, { field: String(issue.path[0] ?? 'chain') });
    }
    const { chain, addresses } = parsed.data;
    res.json(await listKnownTokens(paths.swapConfig, chain, env, addresses?.split(',') ?? []));
  });
  return router;
}
