import { Router } from 'express';
import type { ConfigStore } from '../config/config-store.js';
import type { ConfigWriter } from '../config/config-writer.js';
import { parseBody } from '../http/validation.js';
import { ApiError } from '../http/errors.js';
import { searchOne } from '../web/search-providers.js';
import { maskedWebConfig, mergeForWrite, resolveProvider, webConfigOf } from '../web/web-config.js';
import { WebConfigSchema, type WebConfig, type WebTestResponse } from '../web/web-api.js';
import type { WsHub } from '../ws/ws-hub.js';

/** Keys PUT /api/config/web manages: absent from the body → removed from config.yaml. */
const WEB_KEYS = new Set(['providers', 'approval', 'allow_hosts', 'id', 'type', 'api_key', 'base_url']);

export async function readWebConfig(config: ConfigStore): Promise<WebConfig> {
  await config.refresh();
  return webConfigOf(config.snapshot().document).config;
}

/** DESIGN 14: `GET/PUT /api/config/web` and a Test of the search providers. */
export function webConfigRoutes(deps: { config: ConfigStore; writer: ConfigWriter; ws: WsHub }): Router {
  const { config, writer, ws } = deps;
  const router = Router();
  router.get('/api/config/web', async (_req, res) => {
    await config.refresh();
    const { config: web, problem } = webConfigOf(config.snapshot().document);
    res.json({ ...maskedWebConfig(web, config.env), ...(problem ? { error: problem } : {}) });
  });
  router.put('/api/config/web', async (req, res) => {
    const input = parseBody(WebConfigSchema, req.body);
    const stored = await readWebConfig(config);
    const merged = mergeForWrite(input, stored);
    await writer.setTopLevel({ web_search: merged.web_search, web_fetch: merged.web_fetch }, WEB_KEYS);
    ws.configChanged('web', null);
    res.json(maskedWebConfig(await readWebConfig(config), config.env));
  });
  router.post('/api/config/web/test', async (req, res) => {
    const body = (req.body ?? {}) as { id?: unknown; query?: unknown };
    const web = await readWebConfig(config);
    const providers = web.web_search.providers.filter((p) => body.id === undefined || p.id === body.id);
    if (body.id !== undefined && providers.length === 0)
      throw new ApiError('not_found', `No web search provider with id ${String(body.id).slice(0, 80)}.`);
    const query = typeof body.query === 'string' && body.query.trim() ? body.query.trim() : 'open source';
    const results: WebTestResponse['results'] = [];
    for (const p of providers) {
      const resolved = resolveProvider(p, config.env);
      try {
        const found = await searchOne(resolved, query, 3);
        results.push({ id: p.id, ok: true, count: found.length, message: `${found.length} results for "${query}"` });
      } catch (err) {
        const message = (err as Error).message;
        results.push({ id: p.id, ok: false, count: 0, message: resolved.apiKey ? message.split(resolved.apiKey).join('***') : message });
      }
    }
    res.json({ results } satisfies WebTestResponse);
  });
  return router;
}
