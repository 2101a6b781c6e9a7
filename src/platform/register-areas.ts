import type { FastifyPluginAsync } from 'fastify';
import { type AppContext, needsOf } from '../context.js';
import type { StratusApp } from '../http/stratus-app.js';
import type { AnyArea, AreasOf, RouteContext } from './area.js';

/** Registers every area's routes (src/areas.ts), in the list's order. */
export async function registerAreas(app: StratusApp, ctx: AppContext): Promise<void> {
  const owners = new Map<string, string>();
  for (const area of ctx.modules) await app.register(areaPlugin(ctx, area, owners));
}

/**
 * An area's routes in one scope: its API under `/v4` (and so `/v4beta`), then its internal and
 * login-service routes. A route another area already declared stops the start, naming both.
 */
function areaPlugin(
  ctx: AppContext,
  area: AnyArea,
  owners: Map<string, string>,
): FastifyPluginAsync {
  const { areas, modules: _modules, stateHooks: _hooks, ...runtime } = ctx;
  const rc: RouteContext<unknown, AreasOf<readonly AnyArea[]>> = {
    ...runtime,
    services: areas[area.name as keyof typeof areas],
    areas: needsOf(area, areas),
  };
  return async (scope) => {
    scope.addHook('onRoute', (route) => {
      for (const m of [route.method].flat()) {
        const key = `${m} ${route.url}`;
        const owner = owners.get(key);
        if (owner !== undefined && owner !== area.name)
          throw new Error(`route ${key} is declared by area ${owner} and by area ${area.name}`);
        owners.set(key, area.name);
      }
    });
    for (const p of area.api?.(rc) ?? [])
      await scope.register(p as FastifyPluginAsync, { prefix: '/v4' });
    for (const p of [...(area.internal?.(rc) ?? []), ...(area.login?.(rc) ?? [])])
      await scope.register(p as FastifyPluginAsync);
  };
}
