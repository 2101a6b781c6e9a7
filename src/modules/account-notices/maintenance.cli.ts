import { parseArgs } from 'node:util';
import type { Config } from '../../config/config.js';
import { type CliIo, stdio } from '../../lib/cli-io.js';
import { type AppContext, createContext } from '../../context.js';
import { ApiError } from '../../errors/api-error.js';
import { MAINTENANCE_SOURCES, MAINTENANCE_TYPES } from './notices.schemas.js';

class CliError extends Error {}

const OPTIONS = {
  compute: { type: 'string' },
  type: { type: 'string' },
  when: { type: 'string' },
  until: { type: 'string' },
  reason: { type: 'string' },
  emergency: { type: 'boolean' },
  source: { type: 'string' },
  euuid: { type: 'string' },
  id: { type: 'string' },
} as const;

function integer(v: string | undefined, name: string): number {
  if (v === undefined || !/^[1-9]\d{0,9}$/.test(v)) throw new CliError(`--${name} must be an id`);
  return Number(v);
}

/**
 * `stratus maintenance create|list|cancel` on a context: what the command runs (tests pass the
 * test app's context). Prints JSON; errors on `io.err`; returns the exit code.
 */
export async function runMaintenance(ctx: AppContext, args: string[], io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: OPTIONS,
      strict: true,
      allowPositionals: true,
    });
    const svc = ctx.areas.accountNotices.maintenance;
    const json = (v: unknown) => io.out(JSON.stringify(v, null, 2));
    switch (positionals[0]) {
      case 'create': {
        const type = values.type;
        if (type !== undefined && !(MAINTENANCE_TYPES as readonly string[]).includes(type)) {
          throw new CliError(`--type must be one of ${MAINTENANCE_TYPES.join(', ')}`);
        }
        const source = values.source;
        if (source !== undefined && !(MAINTENANCE_SOURCES as readonly string[]).includes(source)) {
          throw new CliError(`--source must be one of ${MAINTENANCE_SOURCES.join(', ')}`);
        }
        json(
          await svc.createMaintenance({
            compute_id: integer(values.compute, 'compute'),
            ...(type !== undefined ? { type } : {}),
            ...(values.emergency ? { description: 'emergency' } : {}),
            ...(source !== undefined ? { source } : {}),
            ...(values.when !== undefined ? { when: values.when } : {}),
            ...(values.until !== undefined ? { until: values.until } : {}),
            ...(values.reason !== undefined ? { reason: values.reason } : {}),
          }),
        );
        return 0;
      }
      case 'list':
        json(await svc.listMaintenance(values.euuid));
        return 0;
      case 'cancel':
        json(await svc.cancelMaintenance(integer(values.id, 'id')));
        return 0;
      default:
        throw new CliError(`unknown command: maintenance ${positionals[0] ?? ''}`.trim());
    }
  } catch (err) {
    if (err instanceof ApiError) io.err(JSON.stringify({ errors: err.errors }));
    else io.err(err instanceof Error ? err.message : String(err));
    return err instanceof ApiError || err instanceof CliError || err instanceof TypeError ? 2 : 1;
  }
}

/** `stratus maintenance …` on the configured database. */
export async function maintenanceCommand(
  config: Config,
  args: string[],
  io: CliIo = stdio,
): Promise<number> {
  const ctx = await createContext(config);
  try {
    return await runMaintenance(ctx, args, io);
  } finally {
    await ctx.db.close();
  }
}
