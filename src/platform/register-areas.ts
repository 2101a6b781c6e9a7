import type { FastifyPluginAsync } from 'fastify';
import { type AppContext, needsOf } from '../context.js';
import type { StratusApp } from '../http/stratus-app.js';
import type { AnyArea, AreasOf, RouteContext } from './area.js';

/** Routes an area serves: API operations (with an operationId) and routes of any kind. */
export interface Served {
  operations: number;
  routes: number;
}

/**
 * Registers every area's routes (src/areas.ts), in the list's order; counts each area's routes
 * into `served` (what `/_stratus/health` lists).
 */
export async function registerAreas(
  app: StratusApp,
  ctx: AppContext,
  served: Map<string, Served> = new Map(),
): Promise<void> {
  const owners = new Map<string, string>();
  for (const area of ctx.modules) {
    await app.register(named(areaPlugin(ctx, area, owners, served), `area ${area.name}`));
  }
}

/**
 * A plugin with its name for Fastify's logs and errors. Without one, Fastify looks for the
 * function among the exports of every CommonJS module loaded, for each plugin (about 300 here):
 * a noticeable part of the start.
 */
function named<T extends object>(plugin: T, name: string): T {
  return Object.assign(plugin, { [Symbol.for('fastify.display-name')]: name });
}

/**
 * An area's routes in one scope: its API under `/v4` (and so `/v4beta`), then its internal and
 * login-service routes. A route another area already declared stops the start, naming both.
 */
function areaPlugin(
  ctx: AppContext,
  area: AnyArea,
  owners: Map<string, string>,
  served: Map<string, Served>,
): FastifyPluginAsync {
  const { areas, modules: _modules, stateHooks: _hooks, ...runtime } = ctx;
  const rc: RouteContext<unknown, AreasOf<readonly AnyArea[]>> = {
    ...runtime,
    services: areas[area.name as keyof typeof areas],
    areas: needsOf(area, areas),
  };
  const count = served.get(area.name) ?? { operations: 0, routes: 0 };
  served.set(area.name, count);
  return async (scope) => {
    scope.addHook('onRoute', (route) => {
      // The HEAD routes Fastify adds beside GET ones are not routes of their own.
      if (route.method !== 'HEAD') {
        count.routes++;
        if ((route.config as { operationId?: string } | undefined)?.operationId) count.operations++;
      }
      for (const m of [route.method].flat()) {
        const key = `${m} ${route.url}`;
        const owner = owners.get(key);
        if (owner !== undefined && owner !== area.name)
          throw new Error(`route ${key} is declared by area ${owner} and by area ${area.name}`);
        owners.set(key, area.name);
      }
    });
    for (const [i, p] of (area.api?.(rc) ?? []).entries())
      await scope.register(named(p as FastifyPluginAsync, `${area.name} api ${i + 1}`), {
        prefix: '/v4',
      });
    for (const [i, p] of [...(area.internal?.(rc) ?? []), ...(area.login?.(rc) ?? [])].entries())
      await scope.register(named(p as FastifyPluginAsync, `${area.name} routes ${i + 1}`));
  };
}
