import type {
  FastifyContextConfig,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
} from 'fastify';
import type { AppContext } from '../context.js';
import { faultsStep } from '../modules/controls/faults.js';
import { guardsOperator, operatorStep } from '../modules/controls/operator.js';
import { authStep, type GateStep } from './auth-hook.js';

/** What the request log line and the metrics need of a route, worked out when it is registered. */
export interface RouteInfo {
  operationId: string | undefined;
  /** The route's pattern (`/v4/volumes/:volumeId`). */
  url: string;
}

/**
 * The one onRequest hook of a route that needs more than the common headers: the operator token
 * (`/_stratus/` routes), then, for API operations, the bearer token, scopes and rate limits
 * (src/http/auth-hook.ts), then the injected faults. These used to be three hooks of every
 * request, each reading the route's options again (Fastify builds that object anew at each
 * read) and deciding from them per request; now what is decided by the route is decided once,
 * routes that need none of it get no hook at all, and a request whose steps need no I/O (a token
 * in the principal cache, no fault rules) passes without a promise. Order and answers are the
 * same as before: operator token, then authentication, then faults.
 *
 * Also records the route on the request (`req.routeInfo`) for the onResponse hook.
 */
export function routeGate(
  ctx: AppContext,
  url: string,
  cfg: FastifyContextConfig | undefined,
): onRequestHookHandler | undefined {
  const operationId = cfg?.operationId;
  const steps: GateStep[] = [];
  if (guardsOperator(url, cfg)) steps.push(operatorStep(ctx.areas.controls.operator));
  if (operationId !== undefined) {
    steps.push(authStep(ctx, { ...cfg, operationId }));
    steps.push(faultsStep(ctx.db, ctx.areas.controls.faults, operationId));
  }
  if (steps.length === 0) return undefined;
  const info: RouteInfo = { operationId, url };
  return function gate(req, reply, done) {
    req.routeInfo = info;
    run(steps, 0, req, reply, done);
  };
}

function run(
  steps: GateStep[],
  from: number,
  req: FastifyRequest,
  reply: FastifyReply,
  done: (err?: Error) => void,
): void {
  for (let i = from; i < steps.length; i++) {
    let wait: void | Promise<void>;
    try {
      wait = (steps[i] as GateStep)(req, reply);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (wait !== undefined) {
      wait.then(
        () => run(steps, i + 1, req, reply, done),
        (err: Error) => done(err),
      );
      return;
    }
  }
  done();
}
