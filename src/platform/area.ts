import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { EntityType } from '../entities/entities.js';
import type { AnyJobDefinition } from '../jobs/runner.js';
import type { Platform, Runtime } from './platform.js';
import type { StateHook } from './state-hook.js';

/** A route plugin of an area, typed for TypeBox schemas or not. */
export type AreaPlugin = FastifyPluginAsyncTypebox | FastifyPluginAsync;

/**
 * What an area's route plugins are built from: the runtime, the area's own services, and the
 * services of the areas it declared in `needs` (only those). A route file states the part it
 * uses, e.g. `RouteContext<{ volumes: VolumesService }>`.
 */
export interface RouteContext<S = unknown, A = unknown> extends Runtime {
  services: S;
  areas: A;
}

// biome-ignore lint/suspicious/noExplicitAny: the list holds areas of every services type.
export type AnyArea = AreaModule<string, any, readonly AnyArea[]>;

/** The services of each area of `D`, by area name: what `needs: D` gives an area. */
export type AreasOf<D extends readonly AnyArea[]> = {
  [M in D[number] as M['name']]: ReturnType<M['services']>;
};

/**
 * One area of the API: everything it adds to the server, declared in one value and read by the
 * context, the app, the job runner, the entity registry and the state service (src/areas.ts lists
 * every area). Nothing in it runs at import time.
 */
export interface AreaModule<N extends string, S, D extends readonly AnyArea[]> {
  /** The key of its services under `ctx.areas` (the folder's name in lowerCamelCase). */
  name: N;
  /** The areas whose services it uses. They come before it in the list. */
  needs: D;
  /** The tables it owns (made by the migrations); every table has exactly one owner. */
  tables: readonly string[];
  /** The entity types it declares (grants, event references, cascades, tags, transfers). */
  entities?: readonly EntityType[];
  /** Its durable job definitions. */
  jobs?: readonly AnyJobDefinition[];
  /**
   * Builds its services from the platform and the services of `needs`. Services are keyed by
   * their class name without `Service`, in lowerCamelCase (`InstancesService` → `instances`).
   */
  services(platform: Platform, areas: AreasOf<D>): S;
  /** Work at start, after every area's services exist (e.g. writing the shipped catalogue). */
  start?(services: S, platform: Platform): Promise<void>;
  /** Route plugins of the API, served under `/v4` and `/v4beta`. */
  api?(ctx: RouteContext<S, AreasOf<D>>): AreaPlugin[];
  /** Route plugins outside the API: `/_stratus/…` (internal, operator) and uploads. */
  internal?(ctx: RouteContext<S, AreasOf<D>>): AreaPlugin[];
  /** Route plugins of the OAuth login service (`/oauth/…`, `/.well-known/…`). */
  login?(ctx: RouteContext<S, AreasOf<D>>): AreaPlugin[];
  /** State kept outside the database: reset, snapshot export and import call these. */
  stateHooks?(services: S, platform: Platform): StateHook[];
  /** Lines of the Prometheus text format that `/_stratus/metrics` adds for it. */
  metrics?(services: S): string[];
}

/**
 * Declares an area. `needs` comes before `services` in the literal, so its types reach the
 * `areas` argument. The identity function only carries the types.
 */
export function defineArea<const N extends string, S, const D extends readonly AnyArea[] = []>(
  area: AreaModule<N, S, D>,
): AreaModule<N, S, D> {
  return area;
}
