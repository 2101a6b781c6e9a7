import { randomUUID } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.js';
import { ApiError } from '../../errors/api-error.js';
import { errors } from '../../errors/errors.js';

const d = (description: string) => ({ description });

export const FaultRuleSchema = Type.Object(
  {
    id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, ...d('Yours to choose; random when absent.') }),
    ),
    method: Type.Optional(
      Type.String({ pattern: '^[A-Za-z]+$', ...d('Matches this HTTP method only (any case).') }),
    ),
    path: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        ...d(
          'Matches paths by pattern: `*` is one segment, `**` any number. Without a `/v4` ' +
            'prefix it matches `/v4` and `/v4beta` (`/volumes/*`); with one, only that.',
        ),
      }),
    ),
    operationId: Type.Optional(
      Type.String({ minLength: 1, ...d('Matches one API operation (`createVolume`).') }),
    ),
    account: Type.Optional(
      Type.String({ minLength: 1, ...d('Matches requests of one account (its euuid).') }),
    ),
    probability: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1, ...d('The chance a matching request is hit (1).') }),
    ),
    count: Type.Optional(
      Type.Integer({
        minimum: 1,
        ...d('How many requests the rule answers, over every process; unlimited when absent.'),
      }),
    ),
    response: Type.Union(
      [
        Type.Literal('rate_limit'),
        Type.Literal('busy'),
        Type.Literal('error'),
        Type.Literal('maintenance'),
        Type.Literal('latency'),
      ],
      d(
        '`rate_limit`: 429 with `Retry-After`; `busy`: 400 `<Entity> busy.`; `error`: ' +
          '`status` (500 by default) with `message`; `maintenance`: 503 with ' +
          '`X-Maintenance-Mode`, which clients do not retry; `latency`: `latency_ms`, then the ' +
          'real answer.',
      ),
    ),
    retry_after: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 86_400, ...d('`rate_limit`: seconds (1).') }),
    ),
    entity: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        ...d('`busy`: the `<Entity>` of `<Entity> busy.`; derived from the path when absent.'),
      }),
    ),
    status: Type.Optional(
      Type.Union(
        [Type.Literal(500), Type.Literal(502), Type.Literal(503), Type.Literal(504)],
        d('`error`: the status.'),
      ),
    ),
    message: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, ...d('`error`, `maintenance`: the reason.') }),
    ),
    latency_ms: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 120_000,
        ...d('Added before the answer (with any response; alone with `latency`).'),
      }),
    ),
  },
  { additionalProperties: false },
);
export type FaultRule = Static<typeof FaultRuleSchema> & { id: string };

/** The fault-rule format, as the controls' OpenAPI document states it. */
export const FAULT_RULES_DOC =
  'The rules replace the current ones (an empty list clears them). A request to the API ' +
  '(never to `/_stratus/`) meets the rules in order; the first whose `method`, `path`, ' +
  '`operationId` and `account` all match (each optional), that passes its `probability` and ' +
  'has `count` left, answers with its `response`. A refused request changes nothing. Every ' +
  'process on the database follows within 250 ms; counts are shared.';

export const FaultsBody = Type.Object(
  { rules: Type.Array(FaultRuleSchema, { maxItems: 200 }) },
  {
    additionalProperties: false,
    examples: [
      {
        rules: [
          {
            id: 'throttle-creates',
            method: 'POST',
            path: '/compute/instances',
            response: 'rate_limit',
            retry_after: 2,
            count: 3,
          },
          { operationId: 'getVolume', response: 'busy', probability: 0.25 },
          { path: '/networking/**', response: 'error', status: 503, message: 'Try later.' },
          { response: 'latency', latency_ms: 400 },
        ],
      },
      { rules: [] },
    ],
  },
);

const ENTITY_BY_SEGMENT: Record<string, string> = {
  compute: 'Compute',
  volumes: 'Volume',
  nodebalancers: 'NodeBalancer',
  networking: 'Firewall',
  images: 'Image',
  vpcs: 'VPC',
  domains: 'Domain',
  'object-storage': 'Bucket',
  lke: 'Cluster',
};

function entityOf(path: string): string {
  const seg = path.replace(/^\/v4(beta)?\//, '').split('/')[0] ?? '';
  return ENTITY_BY_SEGMENT[seg] ?? (seg ? seg[0]?.toUpperCase() + seg.slice(1) : 'Entity');
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split(/(\*\*|\*)/)
    .map((p) => (p === '**' ? '.*' : p === '*' ? '[^/]*' : p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body.replace(/\/+$/, '')}/?$`);
}

interface Compiled {
  rule: FaultRule;
  path: RegExp | undefined;
  exhausted: boolean;
}

/** The fault rules this process applies (kept in step with the database by ControlsSync). */
export class FaultSet {
  private compiled: Compiled[] = [];

  private list: FaultRule[] = [];

  get rules(): FaultRule[] {
    return this.list;
  }

  load(rules: FaultRule[]): void {
    this.list = rules;
    this.compiled = rules.map((rule) => ({
      rule,
      path: rule.path ? globToRegExp(rule.path) : undefined,
      exhausted: false,
    }));
  }

  /** Gives ids to rules without one. */
  static withIds(rules: Static<typeof FaultRuleSchema>[]): FaultRule[] {
    return rules.map((r) => ({ ...r, id: r.id ?? randomUUID() }));
  }

  /** The first rule that matches the request, passes its probability and has count left. */
  async pick(
    db: Database,
    req: { method: string; path: string; operationId: string; account: string | undefined },
    random: () => number = Math.random,
  ): Promise<FaultRule | undefined> {
    const bare = req.path.replace(/^\/v4(beta)?(?=\/)/, '');
    for (const c of this.compiled) {
      const r = c.rule;
      if (c.exhausted) continue;
      if (r.method && r.method.toUpperCase() !== req.method) continue;
      if (r.operationId && r.operationId !== req.operationId) continue;
      if (r.account && r.account !== req.account) continue;
      if (c.path && !c.path.test(r.path?.startsWith('/v4') ? req.path : bare)) continue;
      if (random() >= (r.probability ?? 1)) continue;
      if (r.count !== undefined) {
        const res = await db.db
          .updateTable('emulator_fault_counters')
          .set((eb) => ({ remaining: eb('remaining', '-', 1) }))
          .where('rule_id', '=', r.id)
          .where('remaining', '>', 0)
          .executeTakeFirst();
        if (Number(res.numUpdatedRows) === 0) {
          c.exhausted = true;
          continue;
        }
      }
      return r;
    }
    return undefined;
  }
}

/** The error a rule answers with (undefined for latency alone). */
export function faultError(rule: FaultRule, path: string): ApiError | undefined {
  switch (rule.response) {
    case 'rate_limit':
      return errors.tooManyRequests(rule.retry_after ?? 1);
    case 'busy':
      return errors.busy(rule.entity ?? entityOf(path));
    case 'error': {
      const status = rule.status ?? 500;
      if (status === 500 && !rule.message) return errors.internal();
      return new ApiError(
        status,
        [{ reason: rule.message ?? 'An internal error occurred. Please try again later.' }],
        'fault',
      );
    }
    case 'maintenance': {
      const message = rule.message ?? 'Currently in maintenance mode.';
      return new ApiError(503, [{ reason: message }], 'maintenance', {
        'X-Maintenance-Mode': `all,${message}`,
      });
    }
    case 'latency':
      return undefined;
  }
}

/**
 * The request gate's step after authentication, on routes with an operationId (API operations,
 * never `/_stratus/`). Without rules (the usual case) a request pays one length test, no promise.
 */
export function faultsStep(db: Database, faults: FaultSet, operationId: string) {
  const apply = async (req: FastifyRequest): Promise<void> => {
    const path = req.url.split('?')[0] ?? '/';
    const rule = await faults.pick(db, {
      method: req.method,
      path,
      operationId,
      account: req.principal?.accountEuuid,
    });
    if (!rule) return;
    if (rule.latency_ms) await new Promise((r) => setTimeout(r, rule.latency_ms));
    const err = faultError(rule, path);
    if (err) throw err;
  };
  return (req: FastifyRequest, _reply: FastifyReply): void | Promise<void> =>
    faults.rules.length === 0 ? undefined : apply(req);
}
